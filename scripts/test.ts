/**
 * `npm test`: the whole suite in runs — server tests (real SQLite, app.handle), the same
 * server tests again on PostgreSQL (a throw-away cluster; skipped, saying why, only when
 * PostgreSQL is not installed), UI component tests (happy-dom, loaded only there), end-to-end
 * tests (the built executable in Chromium) — then one closing line "tests: N passed, N failed"
 * that counts every layer, with each layer's own figures after it, and the type check's outcome
 * on a line of its own ("type check: clean"), not counted as a test.
 * Pass a layer name (server, postgres, ui, e2e) to run only that layer, and paths after it to
 * run only those test files in it: `bun scripts/test.ts postgres tests/server/audit.test.ts`.
 */
import { SQL } from "bun";
import { applyPgMigrations } from "../src/db/migrate-pg";
import { postgresMissing, startPostgres } from "../tests/support/postgres";

const SERVER = ["test", "--timeout", "30000", "./src", "./tests/server"];
const LAYERS: Record<string, string[]> = {
  server: SERVER,
  postgres: SERVER,
  ui: ["test", "--timeout", "30000", "--preload", "./tests/setup/happydom.ts", "./ui"],
  e2e: ["test", "--timeout", "120000", "./tests/e2e"],
};
/** The migrated database every PostgreSQL test database is copied from. */
const PG_TEMPLATE = "dw_template";

const argv = process.argv.slice(2);
/** layer names asked for; any other argument is a test file or folder to run instead of the layer's own */
const only = argv.filter((arg) => arg === "types" || arg in LAYERS);
const paths = argv.filter((arg) => !only.includes(arg));
if (paths.length) {
  for (const args of Object.values(LAYERS)) {
    const first = args.findIndex((arg) => arg.startsWith("./") && !arg.endsWith(".ts"));
    args.splice(first, args.length - first, ...paths);
  }
}
let passed = 0;
let failed = 0;
let skipped = 0;
let broken = false;
/** the type check's outcome, reported beside the tests' closing line (not counted as a test) */
let typeCheck: string | null = null;
/** each layer's figures, for the closing line */
const figures: string[] = [];
/** every failing test with the lines printed before it, repeated at the end where a log's tail shows them */
const failures: string[] = [];

// The type check runs with the full suite: a type error is a defect even when no test trips on it.
if ((!only.length && !paths.length) || only.includes("types")) {
  console.log("\n=== type check (tsc --noEmit) ===");
  const tsc = Bun.spawnSync([process.execPath, "node_modules/typescript/bin/tsc", "--noEmit", "-p", "."], { stdout: "inherit", stderr: "inherit" });
  // reported on its own after the closing line: a type check is not a test
  typeCheck = tsc.exitCode === 0 ? "clean" : "errors (see above)";
  console.log(`type check: ${typeCheck}`);
}
for (const [name, args] of Object.entries(LAYERS)) {
  if (only.length && !only.includes(name)) continue;
  if (name === "postgres") {
    await onPostgres(args);
    continue;
  }
  console.log(`\n=== ${name} tests ===`);
  await runLayer(name, args, {});
}
if (failures.length) console.log(`\n=== failing tests, again ===\n${failures.join("\n\n")}`);
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}${figures.length ? ` (${figures.join("; ")})` : ""}`);
if (typeCheck) console.log(`type check: ${typeCheck}`);
process.exit(failed > 0 || broken || (typeCheck !== null && typeCheck !== "clean") ? 1 : 0);

/** The server tests on a throw-away PostgreSQL cluster with a migrated template database. */
async function onPostgres(args: string[]): Promise<void> {
  console.log("\n=== server tests (postgres) ===");
  if (postgresMissing) {
    console.log(`not run: ${postgresMissing}`);
    figures.push(`postgres: not run, ${postgresMissing}`);
    return;
  }
  const cluster = await startPostgres();
  try {
    const client = new SQL(await cluster.createDatabase(PG_TEMPLATE));
    try {
      await applyPgMigrations(client);
    } finally {
      await client.close();
    }
    await runLayer("postgres", args, { DW_TEST_DATABASE_URL: cluster.url(), DW_TEST_PG_TEMPLATE: PG_TEMPLATE });
  } catch (error) {
    console.log(`PostgreSQL test cluster: ${error instanceof Error ? error.message : String(error)}\n${cluster.log().slice(-2000)}`);
    broken = true;
  } finally {
    await cluster.stop();
  }
}

async function runLayer(name: string, args: string[], env: Record<string, string>): Promise<void> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, ...args], { stdout: "inherit", stderr: "pipe", env: { ...process.env, ...env, FORCE_COLOR: "0" } });
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
  const lines = err.split("\n");
  lines.forEach((line, at) => {
    if (line.startsWith("# Unhandled error")) {
      // an error outside any test: the file it came after, and the error up to its closing rule
      let file = at;
      while (file > 0 && !/^\S.*\.test\.tsx?:$/.test(lines[file - 1] ?? "")) file--;
      let end = at + 2;
      while (end < lines.length && end - at < 40 && !(lines[end] ?? "").startsWith("-----")) end++;
      failures.push([`[${name}] after ${lines[file - 1] ?? "the first file"}`, ...lines.slice(at, end + 1)].join("\n"));
      return;
    }
    if (!line.startsWith("(fail)")) return;
    if (failures.some((seen) => seen.endsWith(`[${name}] ${line}`))) return;
    // the error printed for this test: back to the line after the previous test or file, at most 40 lines
    let start = at;
    while (start > 0 && at - start < 40 && !/^\((pass|fail|skip|todo)\)|^\S.*\.test\.tsx?:$/.test(lines[start - 1] ?? "")) start--;
    failures.push([...lines.slice(start, at), `[${name}] ${line}`].join("\n"));
  });
  const minutes = ((performance.now() - started) / 60_000).toFixed(1);
  figures.push(`${name}: ${count("pass")} passed, ${count("fail")} failed${count("skip") ? `, ${count("skip")} skipped` : ""}, ${minutes} min`);
  if (code !== 0 && count("fail") === 0) {
    broken = true;
    figures.push(`${name}: exited ${code} without a failing test`);
  }
}

export {};
