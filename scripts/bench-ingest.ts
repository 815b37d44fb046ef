/**
 * `npm run bench:ingest`: 1,000 gzip'd aggregate reports of 100 records each, through the
 * real parser (parse only), then through the real ingestion service into a fresh store
 * (parse + store). Prints reports/s, records/s and peak RSS for each, and ends with one JSON
 * line per store:
 *   {"bench":"ingest","store":"sqlite","records":N,"parseOnlyRecordsPerSecond":…,"parseStoreRecordsPerSecond":…,"peakRssMb":…}
 *
 * Options: --store sqlite|postgres|both (default sqlite), --database-url URL (PostgreSQL; without
 * it a throw-away cluster is started and removed), --reports N, --records N.
 * Peak RSS is this process's (the app's side; PostgreSQL's own memory is not counted).
 */
import { gzipSync, strToU8 } from "fflate";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { testConfig } from "../src/config";
import { openPostgresStore, openStore, type Store } from "../src/db";
import { ensureDomains } from "../src/features/domains/service";
import { ensureOrganization } from "../src/features/orgs/service";
import { ingestFile } from "../src/features/reports/ingest";
import { RateLimiter } from "../src/http/rate-limit";
import { aggregateXml } from "../src/lib/reports/generate";
import { parseReportFile } from "../src/lib/reports/parse";
import { createLogger } from "../src/log";
import { startPostgres, type PostgresCluster } from "../tests/support/postgres";

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
  corpus.push(gzipSync(strToU8(aggregateXml({ orgName: "bench.example", reportId: `bench-${run}-${i}`, begin: new Date(1_700_000_000_000 + i * 86_400_000), end: new Date(1_700_000_000_000 + (i + 1) * 86_400_000 - 1000), domain: "example.com", records }))));
}
const bytes = corpus.reduce((n, c) => n + c.length, 0);
console.log(`corpus: ${mb(bytes)} compressed\n`);

/** Prints one row of the table; returns records per second. */
function report(label: string, ms: number, rssBefore: number): number {
  const seconds = ms / 1000;
  console.log(
    `${label.padEnd(24)} ${(REPORTS / seconds).toFixed(0).padStart(7)} reports/s ${((REPORTS * RECORDS) / seconds).toFixed(0).padStart(9)} records/s   ${seconds.toFixed(2)} s   peak RSS ${mb(peakRss)} (start ${mb(rssBefore)})`,
  );
  return (REPORTS * RECORDS) / seconds;
}

/** Parse only: the same for every store. */
async function parseOnly(): Promise<number> {
  Bun.gc(true);
  peakRss = process.memoryUsage.rss();
  const rssBefore = peakRss;
  const start = performance.now();
  let parsed = 0;
  for (const file of corpus) parsed += (await parseReportFile(file)).reports.length;
  const perSecond = report("parse only", performance.now() - start, rssBefore);
  if (parsed !== REPORTS) throw new Error(`parsed ${parsed} reports, expected ${REPORTS}`);
  return perSecond;
}

/** Opens the store to measure, and what closes and removes it afterwards. */
async function openBenchStore(kind: StoreKind): Promise<{ store: Store; dbPath: string; cleanup: () => Promise<void> }> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "dw-bench-"));
    const dbPath = join(dir, "bench.db");
    const store = openStore(dbPath);
    return { store, dbPath, cleanup: async () => (store.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  let cluster: PostgresCluster | null = null;
  let url = DATABASE_URL;
  if (!url) {
    console.log("starting a throw-away PostgreSQL cluster…");
    cluster = await startPostgres();
    url = await cluster.createDatabase();
  }
  const store = await openPostgresStore(url);
  return {
    store,
    dbPath: join(tmpdir(), "dw-bench-unused.db"),
    cleanup: async () => {
      await store.close();
      await cluster?.stop();
    },
  };
}

/** Parse + store through the real ingestion service, one report file at a time. */
async function parseAndStore(kind: StoreKind): Promise<number> {
  const { store, dbPath, cleanup } = await openBenchStore(kind);
  try {
    const deps = { config: testConfig({ db: dbPath }), store, log: createLogger("warn"), limiter: new RateLimiter(store), now: () => new Date() };
    const orgId = await ensureOrganization(deps, `bench-${run}`, "Bench");
    await ensureDomains(deps, orgId, ["example.com"]);
    Bun.gc(true);
    peakRss = process.memoryUsage.rss();
    const rssBefore = peakRss;
    const start = performance.now();
    let stored = 0;
    for (let i = 0; i < corpus.length; i++) {
      const result = await ingestFile(deps, { orgId, fileName: `bench-${i}.xml.gz`, bytes: corpus[i]!, source: "cli" });
      if (result.status === "ingested") stored++;
    }
    const perSecond = report(`parse + store (${kind})`, performance.now() - start, rssBefore);
    const [row] = await store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM aggregate_records WHERE org_id = ${orgId}`);
    const records = Number(row?.n ?? 0);
    if (stored !== REPORTS || records !== REPORTS * RECORDS) throw new Error(`stored ${stored} reports / ${records} records, expected ${REPORTS} / ${REPORTS * RECORDS}`);
    return perSecond;
  } finally {
    await cleanup();
  }
}

const lines: string[] = [];
try {
  for (const kind of kinds) {
    console.log(`— ${kind} —`);
    let runPeak = 0;
    const parseOnlyRecordsPerSecond = await parseOnly();
    runPeak = Math.max(runPeak, peakRss);
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
for (const line of lines) console.log(line);
process.exit(0);
