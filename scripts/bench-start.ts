/**
 * npm run bench:start — cold start and idle memory of the built executable: from spawning the
 * process to GET /healthz answering 200, and the resident memory (VmRSS) a few seconds after,
 * with no request other than the health checks. Several runs on one SQLite database (migrated
 * by a first, uncounted start); figures are medians.
 *
 *   bun scripts/bench-start.ts [--runs N] [--settle SECONDS]
 *   DW_DIST=/tmp/dist-x bun scripts/bench-start.ts        (an executable built elsewhere)
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

if (!existsSync(EXECUTABLE)) {
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

/** One start: ms until /healthz answered 200, the CPU the process used until then, and the idle RSS after settling. */
async function start(): Promise<{ ms: number; cpu: number; rss: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = Bun.spawn([EXECUTABLE, "serve", "--db", db, "--port", String(port), "--host", "127.0.0.1", "--log-level", "error"], {
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
    const cpu = cpuMs(child.pid);
    await Bun.sleep(settleSeconds * 1000);
    return { ms, cpu, rss: rssMb(child.pid) };
  } finally {
    child.kill("SIGTERM");
    await child.exited;
  }
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
  for (let i = 0; i < runs; i++) {
    const r = await start();
    times.push(r.ms);
    cpu.push(r.cpu);
    rss.push(r.rss);
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  console.log(`dmarcwarden start benchmark: ${EXECUTABLE}, ${runs} runs on a migrated SQLite database (median; load average ${load})`);
  console.log(`  cold start to /healthz 200: ${median(times).toFixed(1)} ms   (runs: ${times.map((t) => t.toFixed(0)).join(", ")})`);
  console.log(`  CPU used until then:        ${median(cpu).toFixed(1)} ms   (all threads)`);
  console.log(`  idle RSS after ${settleSeconds} s:       ${median(rss).toFixed(1)} MB   (runs: ${rss.map((r) => r.toFixed(0)).join(", ")})`);
  console.log(JSON.stringify({ bench: "start", coldStartMs: Math.round(median(times) * 10) / 10, idleRssMb: Math.round(median(rss) * 10) / 10, startCpuMs: Math.round(median(cpu) * 10) / 10 }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
