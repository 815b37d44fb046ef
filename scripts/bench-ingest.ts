/**
 * `npm run bench:ingest`: 1,000 gzip'd aggregate reports of 100 records each, through the
 * real parser (parse only, on this thread; then on worker threads), then through the real
 * ingestion service into a fresh store (parse + store: parsed on workers while this thread
 * writes in groups of files, one transaction each, as the CLI does). For reference it also runs the floor: a bare regex tokenizer and
 * prepared inserts into three tables of a plain SQLite file, one core, one transaction per
 * file, no checks. Prints reports/s, records/s and peak RSS for each, and ends with one JSON
 * line per store:
 *   {"bench":"ingest","store":"sqlite","records":N,"parseOnlyRecordsPerSecond":…,"parseStoreRecordsPerSecond":…,"peakRssMb":…}
 *
 * Options: --store sqlite|postgres|both (default sqlite), --database-url URL (PostgreSQL; without
 * it a throw-away cluster is started and removed), --reports N, --records N.
 * --write-files DIR measures nothing: it writes the corpus to DIR/reports (bench-N.xml.gz) and a
 * SQLite database DIR/bench.db whose organization "bench" holds example.com, for timing the
 * built CLI on the same files: `dmarcwarden ingest --org bench --db DIR/bench.db DIR/reports`.
 * Peak RSS is this process's (the app's side; PostgreSQL's own memory is not counted).
 * Figures are wall-clock: on a machine busy with other work they are lower than it can do.
 */
import { Database } from "bun:sqlite";
import { gzipSync, strToU8 } from "fflate";
import { gunzipSync } from "node:zlib";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { testConfig } from "../src/config";
import { openPostgresStore, openStore, type Store } from "../src/db";
import { ensureDomains } from "../src/features/domains/service";
import { ensureOrganization } from "../src/features/orgs/service";
import { GroupIngest } from "../src/features/reports/group-ingest";
import { RateLimiter } from "../src/http/rate-limit";
import { aggregateXml } from "../src/lib/reports/generate";
import { parseInBackground, type ParseStats } from "../src/lib/reports/parallel";
import { parseReportFile } from "../src/lib/reports/parse";
import { createLogger } from "../src/log";
import { benchDatabase } from "../tests/support/postgres";

const STORES = ["sqlite", "postgres", "both"] as const;
type StoreKind = Exclude<(typeof STORES)[number], "both">;

const option = (name: string): string | null => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? null) : null;
};
const count = (name: string, fallback: number): number => {
  const value = option(name);
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a whole number of 1 or more (got "${value}")`);
  return n;
};
function fail(message: string): never {
  console.error(`bench:ingest: ${message}`);
  process.exit(2);
}

const REPORTS = count("reports", 1000);
const RECORDS = count("records", 100);
const storeOption = option("store") ?? "sqlite";
if (!(STORES as readonly string[]).includes(storeOption)) fail(`--store must be one of ${STORES.join(", ")} (got "${storeOption}")`);
const DATABASE_URL = option("database-url");
if (DATABASE_URL !== null && !/^postgres(ql)?:\/\//.test(DATABASE_URL)) fail("--database-url must be a postgres:// URL");
const kinds: StoreKind[] = storeOption === "both" ? ["sqlite", "postgres"] : [storeOption as StoreKind];

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 10);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

// report ids differ per run, so a run against an existing database (--database-url) stores every report anew
const run = Date.now().toString(36);
console.log(`generating ${REPORTS} gzip aggregate reports × ${RECORDS} records…`);
const corpus: Uint8Array[] = [];
for (let i = 0; i < REPORTS; i++) {
  const records = Array.from({ length: RECORDS }, (_, j) => ({
    sourceIp: `${10 + (j % 200)}.${i % 250}.${j % 250}.${(i + j) % 250}`,
    count: 1 + ((i * j) % 17),
    dkim: j % 5 === 0 ? "fail" : "pass",
    spf: j % 7 === 0 ? "fail" : "pass",
    dkimAuth: [{ domain: "example.com", selector: "s1", result: j % 5 === 0 ? "fail" : "pass" }],
    spfAuth: [{ domain: "example.com", scope: "mfrom", result: j % 7 === 0 ? "fail" : "pass" }],
  }));
  // one day each from 2023-11-14, the 1,001st report starting over: never a period in the future, which
  // would widen the window every stored report's new-failing-source check reads (report-events.ts)
  const day = i % 1000;
  corpus.push(gzipSync(strToU8(aggregateXml({ orgName: "bench.example", reportId: `bench-${run}-${i}`, begin: new Date(1_700_000_000_000 + day * 86_400_000), end: new Date(1_700_000_000_000 + (day + 1) * 86_400_000 - 1000), domain: "example.com", records }))));
}
const bytes = corpus.reduce((n, c) => n + c.length, 0);
console.log(`corpus: ${mb(bytes)} compressed\n`);

const filesDir = option("write-files");
if (filesDir !== null) {
  if (existsSync(join(filesDir, "bench.db"))) fail(`${filesDir} already holds a bench.db: give an empty or new folder`);
  const reportsDir = join(filesDir, "reports");
  mkdirSync(reportsDir, { recursive: true });
  corpus.forEach((file, i) => writeFileSync(join(reportsDir, `bench-${i}.xml.gz`), file));
  const dbPath = join(filesDir, "bench.db");
  const store = openStore(dbPath);
  const deps = { store, now: () => new Date() };
  await ensureDomains(deps, await ensureOrganization(deps, "bench", "Bench"), ["example.com"]);
  store.close();
  clearInterval(sampler);
  console.log(`${REPORTS} files in ${reportsDir} and ${dbPath} written; time the CLI with:\n  dmarcwarden ingest --org bench --db ${dbPath} ${reportsDir}`);
  process.exit(0);
}

/** CPU seconds this process (every thread) used since `since`. */
const cpuSince = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

/**
 * Prints one row of the table; returns records per second. CPU seconds (all threads) show
 * what the run cost when other work shares the machine: records per CPU second is what one
 * free core would do, whatever the load.
 */
function report(label: string, ms: number, rssBefore: number, cpu: number): number {
  const seconds = ms / 1000;
  console.log(
    `${label.padEnd(26)} ${(REPORTS / seconds).toFixed(0).padStart(6)} reports/s ${((REPORTS * RECORDS) / seconds).toFixed(0).padStart(8)} records/s   ${seconds.toFixed(2).padStart(6)} s   cpu ${cpu.toFixed(2).padStart(6)} s (${((REPORTS * RECORDS) / cpu).toFixed(0).padStart(7)} records/cpu-s)   peak RSS ${mb(peakRss)} (start ${mb(rssBefore)})`,
  );
  return (REPORTS * RECORDS) / seconds;
}

/** Parse only: the same for every store (after an untimed warm-up, so the figure is the steady state). */
async function parseOnly(): Promise<number> {
  for (const file of corpus.slice(0, 100)) await parseReportFile(file);
  Bun.gc(true);
  peakRss = process.memoryUsage.rss();
  const rssBefore = peakRss;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let parsed = 0;
  for (const file of corpus) parsed += (await parseReportFile(file)).reports.length;
  const perSecond = report("parse only", performance.now() - start, rssBefore, cpuSince(cpu));
  if (parsed !== REPORTS) throw new Error(`parsed ${parsed} reports, expected ${REPORTS}`);
  return perSecond;
}

/** Parse only, on worker threads (what the CLI and parse + store use). */
async function parseOnWorkers(): Promise<number> {
  Bun.gc(true);
  peakRss = process.memoryUsage.rss();
  const rssBefore = peakRss;
  const stats: ParseStats = { onWorkers: 0, here: 0 };
  const cpu = process.cpuUsage();
  const start = performance.now();
  let parsed = 0;
  for await (const { parsed: file } of parseInBackground(corpus, (bytes) => bytes, { stats })) {
    if (!file || file instanceof Error) throw file ?? new Error("a report was not parsed ahead");
    parsed += file.reports.length;
  }
  const perSecond = report(`parse only (${stats.onWorkers ? "workers" : "no worker ran"})`, performance.now() - start, rssBefore, cpuSince(cpu));
  if (parsed !== REPORTS) throw new Error(`parsed ${parsed} reports, expected ${REPORTS}`);
  return perSecond;
}

/**
 * The floor: what the machine does with the least work that still stores every record — native
 * gunzip, a bare regex over the XML, prepared inserts into a report, a record and an
 * auth-result table of a plain SQLite file, one transaction per file, on this thread only.
 */
function floor(): number {
  const dir = mkdtempSync(join(tmpdir(), "dw-bench-floor-"));
  const db = new Database(join(dir, "floor.db"));
  try {
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
    db.exec("CREATE TABLE reports (id INTEGER PRIMARY KEY, org TEXT, report_id TEXT, domain TEXT, date_begin INTEGER, date_end INTEGER)");
    db.exec("CREATE TABLE records (id INTEGER PRIMARY KEY, report INTEGER, source_ip TEXT, count INTEGER, disposition TEXT, dkim TEXT, spf TEXT, header_from TEXT)");
    db.exec("CREATE TABLE auth_results (id INTEGER PRIMARY KEY, record INTEGER, method TEXT, domain TEXT, result TEXT)");
    const insertReport = db.prepare("INSERT INTO reports (org, report_id, domain, date_begin, date_end) VALUES (?, ?, ?, ?, ?)");
    const insertRecord = db.prepare("INSERT INTO records (report, source_ip, count, disposition, dkim, spf, header_from) VALUES (?, ?, ?, ?, ?, ?, ?)");
    const insertAuth = db.prepare("INSERT INTO auth_results (record, method, domain, result) VALUES (?, ?, ?, ?)");
    const decoder = new TextDecoder();
    const leaf = /<(\w+)>([^<]*)<\/\1>/g;
    const auth = /<(dkim|spf)>([\s\S]*?)<\/\1>/g;
    const fields = (xml: string) => {
      const out: Record<string, string> = {};
      for (const m of xml.matchAll(leaf)) out[m[1]!] ??= m[2]!;
      return out;
    };
    Bun.gc(true);
    peakRss = process.memoryUsage.rss();
    const rssBefore = peakRss;
    const cpu = process.cpuUsage();
  const start = performance.now();
    let stored = 0;
    for (const file of corpus) {
      const [head, ...records] = decoder.decode(gunzipSync(file)).split("<record>");
      db.transaction(() => {
        const meta = fields(head!);
        const reportRow = insertReport.run(meta.org_name!, meta.report_id!, meta.domain!, Number(meta.begin), Number(meta.end)).lastInsertRowid;
        for (const record of records) {
          const at = record.indexOf("<auth_results>");
          const r = fields(record.slice(0, at));
          const recordRow = insertRecord.run(reportRow, r.source_ip!, Number(r.count), r.disposition!, r.dkim!, r.spf!, r.header_from!).lastInsertRowid;
          for (const m of record.slice(at).matchAll(auth)) {
            const a = fields(m[2]!);
            insertAuth.run(recordRow, m[1]!, a.domain!, a.result!);
          }
          stored++;
        }
      })();
    }
    const perSecond = report("floor (regex + 3 tables)", performance.now() - start, rssBefore, cpuSince(cpu));
    if (stored !== REPORTS * RECORDS) throw new Error(`the floor stored ${stored} records, expected ${REPORTS * RECORDS}`);
    return perSecond;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Opens the store to measure, and what closes and removes it afterwards. */
async function openBenchStore(kind: StoreKind): Promise<{ store: Store; dbPath: string; cleanup: () => Promise<void> }> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "dw-bench-"));
    const dbPath = join(dir, "bench.db");
    const store = openStore(dbPath);
    return { store, dbPath, cleanup: async () => (store.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const { url, stop } = await benchDatabase(DATABASE_URL);
  const store = await openPostgresStore(url);
  return {
    store,
    dbPath: join(tmpdir(), "dw-bench-unused.db"),
    cleanup: async () => {
      await store.close();
      await stop();
    },
  };
}

/** Parse + store through the real ingestion service as the CLI runs it: parsed on workers ahead of the writes, written in groups of files. */
async function parseAndStore(kind: StoreKind): Promise<number> {
  const { store, dbPath, cleanup } = await openBenchStore(kind);
  try {
    const deps = { config: testConfig({ db: dbPath }), store, log: createLogger("warn"), limiter: new RateLimiter(store), now: () => new Date() };
    const orgId = await ensureOrganization(deps, `bench-${run}`, "Bench");
    await ensureDomains(deps, orgId, ["example.com"]);
    Bun.gc(true);
    peakRss = process.memoryUsage.rss();
    const rssBefore = peakRss;
    const cpu = process.cpuUsage();
  const start = performance.now();
    let stored = 0;
    let i = 0;
    // written as the CLI writes: in groups, one transaction for many files (group-ingest.ts)
    const groups = new GroupIngest(deps, {
      onResult(result) {
        if (result.status === "ingested") stored++;
      },
    });
    for await (const { input, parsed } of parseInBackground(corpus, (bytes) => bytes)) {
      await groups.add({ orgId, fileName: `bench-${i++}.xml.gz`, bytes: input, source: "cli", parsed });
    }
    await groups.finish();
    const perSecond = report(`parse + store (${kind})`, performance.now() - start, rssBefore, cpuSince(cpu));
    const [row] = await store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM aggregate_records WHERE org_id = ${orgId}`);
    const records = Number(row?.n ?? 0);
    if (stored !== REPORTS || records !== REPORTS * RECORDS) throw new Error(`stored ${stored} reports / ${records} records, expected ${REPORTS} / ${REPORTS * RECORDS}`);
    return perSecond;
  } finally {
    await cleanup();
  }
}

const load = () => loadavg().map((n) => n.toFixed(2)).join(", ");
console.log(`load average (1, 5, 15 min) at start: ${load()}`);
const lines: string[] = [];
try {
  for (const kind of kinds) {
    console.log(`— ${kind} —`);
    let runPeak = 0;
    const parseOnlyRecordsPerSecond = await parseOnly();
    runPeak = Math.max(runPeak, peakRss);
    await parseOnWorkers();
    runPeak = Math.max(runPeak, peakRss);
    if (kind === kinds[0]) floor();
    const parseStoreRecordsPerSecond = await parseAndStore(kind);
    runPeak = Math.max(runPeak, peakRss);
    console.log("");
    lines.push(
      JSON.stringify({
        bench: "ingest",
        store: kind,
        records: REPORTS * RECORDS,
        parseOnlyRecordsPerSecond: Math.round(parseOnlyRecordsPerSecond),
        parseStoreRecordsPerSecond: Math.round(parseStoreRecordsPerSecond),
        peakRssMb: Math.round(runPeak / 1024 / 1024),
      }),
    );
  }
} finally {
  clearInterval(sampler);
}
console.log(`load average (1, 5, 15 min) at the end: ${load()} (other work on the machine lowers every figure but the per-CPU-second ones)`);
for (const line of lines) console.log(line);
process.exit(0);
