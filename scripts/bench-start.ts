/**
 * npm run bench:start — cold start and idle memory of the built executable: from spawning the
 * process to GET /healthz answering 200, and the resident memory (VmRSS) a few seconds after,
 * with no request other than the health checks. Then one API request (GET /api/auth/me, which
 * loads the app's routes: src/http/boot.ts): how long it took, and the memory a second after.
 * Several runs on one SQLite database (migrated by a first, uncounted start); figures are medians.
 *
 *   bun scripts/bench-start.ts [--runs N] [--settle SECONDS]
 *   DW_DIST=/tmp/dist-x bun scripts/bench-start.ts        (an executable built elsewhere)
 *   bun scripts/bench-start.ts --npm-start [--runs N]     (`npm start` on an unchanged tree instead:
 *                                                          the UI build is skipped, the server runs from source)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const EXECUTABLE = join(process.env.DW_DIST ?? join(ROOT, "dist"), "dmarcwarden");

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const runs = arg("runs", 7);
const settleSeconds = arg("settle", 3);
const npmStart = process.argv.includes("--npm-start");

if (!npmStart && !existsSync(EXECUTABLE)) {
  console.error(`bench:start: ${EXECUTABLE} does not exist; run npm run build first`);
  process.exit(2);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** CPU time the process has used so far (all threads), from /proc: less disturbed by a busy machine than wall time. */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e6;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const dir = mkdtempSync(join(tmpdir(), "dw-bench-start-"));
const db = join(dir, "bench.db");

/** One start: ms until /healthz answered 200, the CPU the process used until then, the idle RSS after settling, then the first API request's ms and the RSS after it. */
async function start(): Promise<{ ms: number; cpu: number; rss: number; apiMs: number; apiRss: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const flags = ["--db", db, "--port", String(port), "--host", "127.0.0.1", "--log-level", "error"];
  const child = Bun.spawn(npmStart ? ["npm", "start", "--silent", "--", ...flags] : [EXECUTABLE, "serve", ...flags], {
    cwd: ROOT,
    stdout: "ignore",
    stderr: "inherit",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir },
  });
  try {
    const url = `http://127.0.0.1:${port}/healthz`;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the executable exited with ${child.exitCode} before answering`);
      try {
        const response = await fetch(url);
        if (response.status === 200) {
          await response.arrayBuffer();
          break;
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(1);
      if (performance.now() - t0 > 30_000) throw new Error("no answer from /healthz within 30 s");
    }
    const ms = performance.now() - t0;
    // under npm start the server is the last of the process tree
    const server = () => descendants(child.pid).at(-1)!;
    const cpu = descendants(child.pid).reduce((sum, pid) => sum + cpuMs(pid), 0);
    await Bun.sleep(settleSeconds * 1000);
    const rss = rssMb(server());
    const a0 = performance.now();
    const api = await fetch(`http://127.0.0.1:${port}/api/auth/me`);
    await api.arrayBuffer();
    if (api.status !== 401) throw new Error(`GET /api/auth/me answered ${api.status}, expected 401`);
    const apiMs = performance.now() - a0;
    await Bun.sleep(1000);
    return { ms, cpu, rss, apiMs, apiRss: rssMb(server()) };
  } finally {
    // npm start runs the server as a grandchild: stop the whole tree
    for (const pid of descendants(child.pid).reverse()) process.kill(pid, "SIGTERM");
    await child.exited;
  }
}

function descendants(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return [pid, ...children.flatMap(descendants)];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

try {
  await start(); // creates and migrates the database; not counted
  const times: number[] = [];
  const cpu: number[] = [];
  const rss: number[] = [];
  const apiMs: number[] = [];
  const apiRss: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await start();
    times.push(r.ms);
    cpu.push(r.cpu);
    rss.push(r.rss);
    apiMs.push(r.apiMs);
    apiRss.push(r.apiRss);
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  console.log(`dmarcwarden start benchmark: ${npmStart ? "npm start (UI unchanged)" : EXECUTABLE}, ${runs} runs on a migrated SQLite database (median; load average ${load})`);
  console.log(`  cold start to /healthz 200: ${median(times).toFixed(1)} ms   (runs: ${times.map((t) => t.toFixed(0)).join(", ")})`);
  console.log(`  CPU used until then:        ${median(cpu).toFixed(1)} ms   (all threads)`);
  console.log(`  idle RSS after ${settleSeconds} s:       ${median(rss).toFixed(1)} MB   (runs: ${rss.map((r) => r.toFixed(0)).join(", ")})`);
  console.log(`  first API request:          ${median(apiMs).toFixed(1)} ms   (loads the app's routes; runs: ${apiMs.map((t) => t.toFixed(0)).join(", ")})`);
  console.log(`  RSS 1 s after it:           ${median(apiRss).toFixed(1)} MB`);
  const r1 = (x: number) => Math.round(x * 10) / 10;
  console.log(JSON.stringify({ bench: npmStart ? "npm-start" : "start", coldStartMs: r1(median(times)), idleRssMb: r1(median(rss)), startCpuMs: r1(median(cpu)), firstApiMs: r1(median(apiMs)), rssAfterApiMb: r1(median(apiRss)) }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
