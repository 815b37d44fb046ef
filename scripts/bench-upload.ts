/**
 * `npm run bench:upload`: one generated gzip aggregate report of `--records N` (default 100,000)
 * through the running built executable's `POST /api/reports/upload`, on a temporary database.
 * The server is started here (dist/dmarcwarden, or DW_DIST), an account and its domain are
 * created through the API, and the upload is timed from the request to the answer. The
 * server's reverse DNS goes to a local DNS server that names every source address, so the
 * enrichment after the upload runs as it would in production; the peak is read once the names
 * of every uploaded report's records are written (SQLite; at most two minutes after the answer). Ends with one JSON line:
 *   {"bench":"upload","store":"sqlite","records":N,"seconds":…,"peakRssMb":…}
 * with the server's peak resident memory (VmHWM of its process, Linux). Each upload's line also
 * gives the CPU seconds it took: the server's (all its threads; its main thread apart) and, with
 * --store postgres, every PostgreSQL process's on this machine (the database's share of the work).
 *
 * Options: --records N, --store sqlite|postgres (a throw-away cluster unless --database-url URL),
 * --executable PATH, --runs N (uploads of fresh reports; the figures are the last run's seconds
 * and the peak over all runs), --pause S (seconds to wait before each upload; default none: back to back).
 */
import { Gzip, strToU8 } from "fflate";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDnsServer, type Zone } from "../tests/support/dns-server";
import { benchDatabase } from "../tests/support/postgres";

const ROOT = join(import.meta.dir, "..");
const option = (name: string): string | null => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? null) : null;
};
function fail(message: string): never {
  console.error(`bench:upload: ${message}`);
  process.exit(2);
}
const count = (name: string, fallback: number): number => {
  const value = option(name);
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a whole number of 1 or more (got "${value}")`);
  return n;
};

const RECORDS = count("records", 100_000);
const RUNS = count("runs", 1);
/** seconds to wait before each upload (0: back to back) */
const PAUSE = option("pause") === null ? 0 : count("pause", 1);
const STORE = option("store") ?? "sqlite";
if (STORE !== "sqlite" && STORE !== "postgres") fail(`--store must be sqlite or postgres (got "${STORE}")`);
const DATABASE_URL = option("database-url");
const EXECUTABLE = option("executable") ?? join(process.env.DW_DIST ?? join(ROOT, "dist"), "dmarcwarden");
if (!existsSync(EXECUTABLE)) fail(`no executable at ${EXECUTABLE}: run npm run build first (or set DW_DIST / --executable)`);

const DOMAIN = "bench-upload.example";
/** distinct source addresses in the report (records share them, as real reports do across their rows) */
const ADDRESSES = Math.min(RECORDS, 20_000);
const ipOf = (j: number) => `10.${(j >> 16) & 255}.${(j >> 8) & 255}.${j & 255}`;

/** The report, gzip'd as it is generated (a million records never sit in memory as XML). */
function generateReport(run: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const gz = new Gzip({ level: 6 }, (chunk) => parts.push(chunk));
  const begin = 1_700_000_000 + run * 86_400;
  gz.push(
    strToU8(
      `<?xml version="1.0" encoding="UTF-8"?>\n<feedback>\n  <report_metadata>\n    <org_name>bench.example</org_name>\n    <email>noreply-dmarc@bench.example</email>\n    <report_id>upload-bench-${Date.now().toString(36)}-${run}</report_id>\n    <date_range>\n      <begin>${begin}</begin>\n      <end>${begin + 86_399}</end>\n    </date_range>\n  </report_metadata>\n  <policy_published>\n    <domain>${DOMAIN}</domain>\n    <adkim>r</adkim>\n    <aspf>r</aspf>\n    <p>none</p>\n    <sp>none</sp>\n    <pct>100</pct>\n  </policy_published>\n`,
    ),
  );
  let batch = "";
  for (let j = 0; j < RECORDS; j++) {
    const dkim = j % 5 === 0 ? "fail" : "pass";
    const spf = j % 7 === 0 ? "fail" : "pass";
    batch += `  <record>\n    <row>\n      <source_ip>${ipOf(j % ADDRESSES)}</source_ip>\n      <count>${1 + (j % 17)}</count>\n      <policy_evaluated>\n        <disposition>none</disposition>\n        <dkim>${dkim}</dkim>\n        <spf>${spf}</spf>\n      </policy_evaluated>\n    </row>\n    <identifiers>\n      <envelope_from>${DOMAIN}</envelope_from>\n      <header_from>${DOMAIN}</header_from>\n    </identifiers>\n    <auth_results>\n      <dkim>\n        <domain>${DOMAIN}</domain>\n        <selector>s${j % 3}</selector>\n        <result>${dkim}</result>\n      </dkim>\n      <spf>\n        <domain>${DOMAIN}</domain>\n        <scope>mfrom</scope>\n        <result>${spf}</result>\n      </spf>\n    </auth_results>\n  </record>\n`;
    if (batch.length > 1 << 20) {
      gz.push(strToU8(batch));
      batch = "";
    }
  }
  gz.push(strToU8(`${batch}</feedback>\n`), true);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

/** every source address has a PTR name, so the enrichment after the upload writes names */
function ptrZone(): Zone {
  const zone: Zone = {};
  for (let j = 0; j < ADDRESSES; j++) {
    const [a, b, c, d] = ipOf(j).split(".");
    zone[`${d}.${c}.${b}.${a}.in-addr.arpa`] = { PTR: [`mail-${j}.outbound.sender${j % 50}.example`] };
  }
  return zone;
}

/** CPU seconds (user + system) in a /proc stat file: a process's (every thread's, ended ones too) or one thread's */
function cpuSeconds(statFile: string): number {
  try {
    const stat = readFileSync(statFile, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // the process ended meanwhile
  }
}

/** CPU seconds so far: the server's (all threads), its main thread's, and every PostgreSQL process's on this machine (the database's work) */
function cpuNow(pid: number): { server: number; main: number; postgres: number } {
  let postgres = 0;
  if (STORE === "postgres")
    for (const p of readdirSync("/proc")) {
      if (!/^\d+$/.test(p)) continue;
      try {
        if (readFileSync(`/proc/${p}/comm`, "utf8").trim() === "postgres") postgres += cpuSeconds(`/proc/${p}/stat`);
      } catch {
        // ended meanwhile
      }
    }
  return { server: cpuSeconds(`/proc/${pid}/stat`), main: cpuSeconds(`/proc/${pid}/task/${pid}/stat`), postgres };
}

function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (!kb) fail("VmHWM not found in /proc (Linux only)");
  return Math.round(Number(kb) / 1024);
}

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

const dir = mkdtempSync(join(tmpdir(), "dw-bench-upload-"));
let stopDatabase = async () => {};
let server: ReturnType<typeof Bun.spawn> | null = null;
const dns = await startDnsServer(ptrZone());
let output = "";
try {
  const databaseArgs: string[] = [];
  if (STORE === "postgres") {
    const { url, stop } = await benchDatabase(DATABASE_URL);
    stopDatabase = stop;
    // several nodes may share PostgreSQL, so the server asks for the key every node encrypts with
    databaseArgs.push("--database-url", url, "--secret-key", Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"));
  } else databaseArgs.push("--db", join(dir, "bench.db"));

  console.log(`generating a gzip aggregate report of ${RECORDS.toLocaleString("en-US")} records…`);
  const reports = Array.from({ length: RUNS }, (_, run) => generateReport(run));
  console.log(`report: ${(reports[0]!.length / 1024 / 1024).toFixed(1)} MB gzip'd`);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  server = Bun.spawn([EXECUTABLE, "serve", "--port", String(port), "--host", "127.0.0.1", "--dns-server", dns.address, ...databaseArgs], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOME: dir },
    stdout: "pipe",
    stderr: "pipe",
  });
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) output = (output + decoder.decode(chunk.value, { stream: true })).slice(-20_000);
  };
  void collect(server.stdout as ReadableStream<Uint8Array>);
  void collect(server.stderr as ReadableStream<Uint8Array>);
  for (let i = 0; ; i++) {
    if (server.exitCode !== null) fail(`the server exited with ${server.exitCode}:\n${output}`);
    if (i > 600) fail(`the server did not answer /healthz:\n${output}`);
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    await Bun.sleep(50);
  }

  let cookie = "";
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: { cookie, origin: url, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    if (res.status >= 300) fail(`${method} ${path} answered ${res.status}: ${await res.text()}`);
    return res;
  };
  const signup = await api("POST", "/api/auth/signup", { name: "Bench", email: "bench@bench-upload.example", password: "a-long-bench-password-1", organization: "Bench Ltd" });
  cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  await api("POST", "/api/domains", { name: DOMAIN });
  console.log(`server idle: peak RSS ${peakRssMb(server.pid)} MB`);

  let seconds = 0;
  /** the stored reports' ids */
  const stored: string[] = [];
  for (const [run, bytes] of reports.entries()) {
    if (PAUSE) await Bun.sleep(PAUSE * 1000);
    const form = new FormData();
    form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], `bench-${run}.xml.gz`));
    const cpuBefore = cpuNow(server.pid);
    const start = performance.now();
    const res = await fetch(`${url}/api/reports/upload`, { method: "POST", headers: { cookie, origin: url }, body: form });
    const body = (await res.json()) as { results?: { status: string; reports: { id: string; recordCount: number }[]; error?: string }[] };
    seconds = (performance.now() - start) / 1000;
    const result = body.results?.[0];
    if (res.status !== 200 || result?.status !== "ingested") fail(`upload answered ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
    if (result.reports[0]?.recordCount !== RECORDS) fail(`stored ${result.reports[0]?.recordCount} records, expected ${RECORDS}`);
    stored.push(result.reports[0].id);
    const cpu = cpuNow(server.pid);
    const cpuText = `CPU: server ${(cpu.server - cpuBefore.server).toFixed(2)} s (main thread ${(cpu.main - cpuBefore.main).toFixed(2)})${STORE === "postgres" ? `, PostgreSQL ${(cpu.postgres - cpuBefore.postgres).toFixed(2)} s` : ""}`;
    console.log(`upload ${run + 1}: ${seconds.toFixed(2)} s, ${Math.round(RECORDS / seconds).toLocaleString("en-US")} records/s, ${cpuText}, server peak RSS so far ${peakRssMb(server.pid)} MB`);
  }
  // the reverse DNS enrichment runs after the answer: wait until its names are written (SQLite:
  // every record of every uploaded report named, read from the file; at most two minutes), then read the peak
  const enrichStart = performance.now();
  if (STORE === "sqlite") {
    const { Database } = await import("bun:sqlite");
    const db = new Database(join(dir, "bench.db"), { readonly: true });
    const unnamed = db.query("SELECT count(*) AS n FROM aggregate_records r WHERE report_seq = (SELECT seq FROM aggregate_reports WHERE id = ?) AND NOT EXISTS (SELECT 1 FROM source_names n WHERE n.org_id = r.org_id AND n.source_ip = r.source_ip)");
    const waiting = () => stored.filter((id) => (unnamed.get(id) as { n: number }).n > 0).length;
    while (waiting() > 0 && performance.now() - enrichStart < 120_000) await Bun.sleep(250);
    const named = (db.query("SELECT count(*) AS n FROM source_names").get() as { n: number }).n;
    console.log(`reverse DNS: ${named.toLocaleString("en-US")} of ${ADDRESSES.toLocaleString("en-US")} addresses named, ${stored.length - waiting()} of ${stored.length} reports' records, ${((performance.now() - enrichStart) / 1000).toFixed(1)} s after the answer`);
    db.close();
  } else await Bun.sleep(Math.min(15_000, 2_000 + ADDRESSES / 10));
  const peak = peakRssMb(server.pid);
  console.log(`after reverse DNS: server peak RSS ${peak} MB`);
  console.log(JSON.stringify({ bench: "upload", store: STORE, records: RECORDS, seconds: Math.round(seconds * 1000) / 1000, peakRssMb: peak }));
} finally {
  server?.kill();
  await server?.exited;
  await dns.close();
  await stopDatabase();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
