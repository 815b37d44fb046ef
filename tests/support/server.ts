/**
 * Starts the built executable (dist/dmarcwarden) on a free port with a temporary database,
 * for end-to-end tests. The executable is built once per test run when missing or older
 * than the sources, so e2e always exercises what `npm run build` produces.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = join(import.meta.dir, "../..");
/** DW_DIST (default dist/) lets several work trees build and test side by side. */
export const EXECUTABLE = join(process.env.DW_DIST ?? join(ROOT, "dist"), "dmarcwarden");

function newestSource(dir: string): number {
  let newest = 0;
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const full = join(dir, name);
    const s = statSync(full);
    newest = Math.max(newest, s.isDirectory() ? newestSource(full) : s.mtimeMs);
  }
  return newest;
}

let built: Promise<void> | null = null;
export function ensureExecutable(): Promise<void> {
  built ??= (async () => {
    const stale = !existsSync(EXECUTABLE) || statSync(EXECUTABLE).mtimeMs < Math.max(newestSource(join(ROOT, "src")), newestSource(join(ROOT, "ui")), newestSource(join(ROOT, "migrations")));
    if (!stale) return;
    const proc = Bun.spawn([process.execPath, join(ROOT, "scripts/build.ts")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if ((await proc.exited) !== 0) throw new Error(`build failed: ${await new Response(proc.stderr).text()}`);
  })();
  return built;
}

export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

export interface RunningServer {
  url: string;
  port: number;
  dir: string;
  dbPath: string;
  proc: Subprocess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `dmarcwarden serve` and waits until /healthz answers. "{port}" in an argument becomes the chosen port (e.g. --public-url http://127.0.0.1:{port}). */
export async function startServer(options: { args?: string[]; env?: Record<string, string>; dir?: string; executable?: string } = {}): Promise<RunningServer> {
  await ensureExecutable();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "dw-e2e-"));
  const port = await freePort();
  const dbPath = join(dir, "dw.db");
  let out = "";
  const proc = Bun.spawn([options.executable ?? EXECUTABLE, "serve", "--port", String(port), "--host", "127.0.0.1", "--db", dbPath, ...(options.args ?? []).map((a) => a.replaceAll("{port}", String(port)))], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) out += decoder.decode(chunk.value, { stream: true });
  };
  void collect(proc.stdout as ReadableStream<Uint8Array>);
  void collect(proc.stderr as ReadableStream<Uint8Array>);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${out}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {}
    await Bun.sleep(50);
    if (i === 199) throw new Error(`server did not start: ${out}`);
  }
  return {
    url,
    port,
    dir,
    dbPath,
    proc,
    output: () => out,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
