/**
 * `npm test`: the whole suite in three runs — server tests (real SQLite, app.handle),
 * UI component tests (happy-dom, loaded only there), end-to-end tests (the built executable
 * in Chromium) — then one closing line "tests: N passed, N failed".
 * Pass a layer name (server, ui, e2e) to run only that layer.
 */
const LAYERS: Record<string, string[]> = {
  server: ["test", "--timeout", "30000", "./src", "./tests/server"],
  ui: ["test", "--timeout", "30000", "--preload", "./tests/setup/happydom.ts", "./ui"],
  e2e: ["test", "--timeout", "120000", "./tests/e2e"],
};

const only = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
let broken = false;

// The type check runs with the full suite: a type error is a defect even when no test trips on it.
if (!only.length || only.includes("types")) {
  console.log("\n=== type check (tsc --noEmit) ===");
  const tsc = Bun.spawnSync([process.execPath, "node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], { stdout: "inherit", stderr: "inherit" });
  if (tsc.exitCode === 0) {
    console.log("type check: no errors");
    passed++;
  } else {
    console.log("type check: errors above");
    failed++;
  }
}
for (const [name, args] of Object.entries(LAYERS)) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n=== ${name} tests ===`);
  const proc = Bun.spawn([process.execPath, ...args], { stdout: "inherit", stderr: "pipe", env: { ...process.env, FORCE_COLOR: "0" } });
  let err = "";
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const text = decoder.decode(chunk.value, { stream: true });
    err += text;
    process.stderr.write(text);
  }
  const code = await proc.exited;
  const count = (word: string) => Number(err.match(new RegExp(`^\\s*(\\d+) ${word}$`, "m"))?.[1] ?? 0);
  passed += count("pass");
  failed += count("fail");
  skipped += count("skip");
  if (code !== 0 && count("fail") === 0) broken = true;
}
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || broken ? 1 : 0);

export {};
