/**
 * `npm run bench:ingest`: 1,000 gzip'd aggregate reports of 100 records each, through the
 * real parser (parse only), then through the real ingestion service into a fresh SQLite file
 * (parse + store). Prints reports/s, records/s and peak RSS for each.
 * Options: --reports N --records N
 */
import { gzipSync, strToU8 } from "fflate";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig } from "../src/config";
import { openStore } from "../src/db";
import { domains, organizations } from "../src/db/schema";
import { ingestFile } from "../src/features/reports/ingest";
import { RateLimiter } from "../src/http/rate-limit";
import { aggregateXml } from "../src/lib/reports/generate";
import { parseReportFile } from "../src/lib/reports/parse";
import { createLogger } from "../src/log";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const REPORTS = arg("reports", 1000);
const RECORDS = arg("records", 100);

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 10);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

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
  corpus.push(gzipSync(strToU8(aggregateXml({ orgName: "bench.example", reportId: `bench-${i}`, begin: new Date(1_700_000_000_000 + i * 86_400_000), end: new Date(1_700_000_000_000 + (i + 1) * 86_400_000 - 1000), domain: "example.com", records }))));
}
const bytes = corpus.reduce((n, c) => n + c.length, 0);
console.log(`corpus: ${mb(bytes)} compressed\n`);

function report(label: string, ms: number, rssBefore: number) {
  const seconds = ms / 1000;
  console.log(
    `${label.padEnd(14)} ${(REPORTS / seconds).toFixed(0).padStart(7)} reports/s ${((REPORTS * RECORDS) / seconds).toFixed(0).padStart(9)} records/s   ${seconds.toFixed(2)} s   peak RSS ${mb(peakRss)} (start ${mb(rssBefore)})`,
  );
}

Bun.gc(true);
peakRss = process.memoryUsage.rss();
let start = performance.now();
let rssBefore = peakRss;
let parsed = 0;
for (const file of corpus) parsed += (await parseReportFile(file)).reports.length;
report("parse only", performance.now() - start, rssBefore);
if (parsed !== REPORTS) throw new Error(`parsed ${parsed} reports, expected ${REPORTS}`);

const dir = mkdtempSync(join(tmpdir(), "dw-bench-"));
try {
  const store = openStore(join(dir, "bench.db"));
  const orgId = store.db.insert(organizations).values({ name: "Bench", slug: "bench" }).returning({ id: organizations.id }).get().id;
  store.db.insert(domains).values({ orgId, name: "example.com" }).run();
  const deps = { config: testConfig({ db: join(dir, "bench.db") }), store, log: createLogger("warn"), limiter: new RateLimiter(store), now: () => new Date() };
  Bun.gc(true);
  peakRss = process.memoryUsage.rss();
  rssBefore = peakRss;
  start = performance.now();
  let stored = 0;
  for (let i = 0; i < corpus.length; i++) {
    const result = await ingestFile(deps, { orgId, fileName: `bench-${i}.xml.gz`, bytes: corpus[i]!, source: "cli" });
    if (result.status === "ingested") stored++;
  }
  report("parse + store", performance.now() - start, rssBefore);
  const rows = store.sqlite.query("SELECT count(*) AS n FROM aggregate_records").get() as { n: number };
  if (stored !== REPORTS || rows.n !== REPORTS * RECORDS) throw new Error(`stored ${stored} reports / ${rows.n} records`);
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
  clearInterval(sampler);
}
