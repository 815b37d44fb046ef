/**
 * `npm run bench:reads`: how fast an organization's dashboard answers while other
 * organizations' large uploads are ingested. The app runs in this process on a temporary SQLite
 * file (as the server does: one event loop, parse workers); `--uploads N` organizations each
 * upload one generated gzip aggregate report of `--records R` at the same moment, while one
 * reader asks GET /api/dashboard/stats every 50 ms (and 40 times before, with nothing else under
 * way). Ends with one JSON line (latencies in milliseconds):
 *   {"bench":"reads","uploads":N,"records":R,"seconds":…,"readsIdle":{…},"readsDuringIngest":{"n":…,"p50":…,"p95":…,"max":…}}
 */
import { gzipSync, strToU8 } from "fflate";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aggregateXml } from "../src/lib/reports/generate";
import { makeTestApp } from "../tests/support/app";
import { signedInMember } from "../tests/support/fixtures";

const option = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  const n = i > 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:reads: --${name} must be a whole number of 1 or more`);
    process.exit(2);
  }
  return n;
};
const UPLOADS = option("uploads", 4);
const RECORDS = option("records", 50_000);

const dir = mkdtempSync(join(tmpdir(), "dw-bench-reads-"));
// a report larger than the default bound is taken, as with --max-records-per-report raised
const t = await makeTestApp({ dbPath: join(dir, "bench.db"), config: { maxRecordsPerReport: Math.max(RECORDS, 100_000) } });
try {
  const { store } = t.deps;
  const orgs = await Promise.all(
    Array.from({ length: UPLOADS + 1 }, async (_, i) => {
      const member = await signedInMember(store, "owner", `Bench ${i}`);
      await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name: "bench.example" }));
      return member;
    }),
  );
  const [reader, ...uploaders] = orgs;
  const report = (i: number) =>
    gzipSync(
      strToU8(
        aggregateXml({
          orgName: "google.com",
          reportId: `bench-${i}`,
          begin: new Date(Date.UTC(2024, 0, 1)),
          end: new Date(Date.UTC(2024, 0, 1, 23, 59, 59)),
          domain: "bench.example",
          records: Array.from({ length: RECORDS }, (_, r) => ({ sourceIp: `10.${i}.${(r >> 8) & 255}.${r & 255}`, count: 1 + (r % 5), dkim: r % 3 ? "pass" : "fail", spf: r % 2 ? "pass" : "fail" })),
        }),
      ),
    );
  const files = uploaders.map((_, i) => report(i));
  const read = () => t.request("GET", "/api/dashboard/stats", { cookie: reader!.cookie });
  const timed = async () => {
    const start = performance.now();
    await (await read()).arrayBuffer();
    return performance.now() - start;
  };
  await timed();
  const idle: number[] = [];
  for (let i = 0; i < 40; i++) {
    idle.push(await timed());
    await Bun.sleep(50);
  }

  const latencies: number[] = [];
  let ingesting = true;
  const reading = (async () => {
    while (ingesting) {
      latencies.push(await timed());
      // a person reading, not a loop: the reads must not take the event loop from the ingests themselves
      await Bun.sleep(50);
    }
  })();
  const started = performance.now();
  await Promise.all(
    uploaders.map(async (u, i) => {
      const form = new FormData();
      form.append("files", new File([files[i]! as Uint8Array<ArrayBuffer>], `bench-${i}.xml.gz`));
      const res = await t.request("POST", "/api/reports/upload", { body: form, cookie: u.cookie });
      if (res.status !== 200) throw new Error(`upload ${i}: HTTP ${res.status} ${await res.text()}`);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  ingesting = false;
  await reading;
  const summary = (list: number[]) => {
    const sorted = [...list].sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! * 10) / 10;
    return { n: sorted.length, p50: at(0.5), p95: at(0.95), max: at(1) };
  };
  console.log(JSON.stringify({ bench: "reads", uploads: UPLOADS, records: RECORDS, seconds: Math.round(seconds * 10) / 10, readsIdle: summary(idle), readsDuringIngest: summary(latencies) }));
} finally {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
}
