import { afterEach, beforeEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { gzipSync, strToU8 } from "fflate";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";
import { aggregateXml, type GeneratedRecord } from "../../lib/reports/generate";
import { DEFAULT_LIMITS, ReportRefusedError, type AggregateRecord } from "../../lib/reports/model";
import { reverseDnsSettled } from "./reverse-dns";
import { MAX_READING_WORKERS, NotStreamable, RECORD_BATCH, keptReadingWorker, readingWorkerTiming, streamAggregate, streamAggregateOnWorker, workerReads, worthAWorker, type RecordSink } from "./streamed-write";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

const RECORDS = 12_000;
/** distinct source addresses: real reports repeat them across rows (and a few fail, so few alert events) */
const ADDRESSES = 500;
const records = (n: number): GeneratedRecord[] =>
  Array.from({ length: n }, (_, j) => ({
    sourceIp: `10.1.${((j % ADDRESSES) >> 8) & 255}.${(j % ADDRESSES) & 255}`,
    count: 1 + (j % 5),
    dkim: j % 4 === 0 ? "fail" : "pass",
    spf: j % 3 === 0 ? "fail" : "pass",
    disposition: j % 4 === 0 && j % 3 === 0 ? "quarantine" : "none",
    dkimAuth: [{ domain: "example.com", selector: "s1", result: j % 4 === 0 ? "fail" : "pass" }],
    spfAuth: [{ domain: "example.com", scope: "mfrom", result: j % 3 === 0 ? "fail" : "pass" }],
  }));
const report = (reportId: string, n = RECORDS) =>
  aggregateXml({ orgName: "google.com", reportId, begin: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-03-01T23:59:59Z"), domain: "example.com", records: records(n) });
const messages = (n = RECORDS) => records(n).reduce((sum, r) => sum + r.count, 0);
const passing = (n = RECORDS) => records(n).reduce((sum, r) => sum + (r.dkim === "pass" || r.spf === "pass" ? r.count : 0), 0);

async function setUp() {
  const member = await signedInMember(t.deps.store, "member");
  const { store } = t.deps;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name: "example.com" }));
  return member;
}

function upload(cookie: string, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], name));
  return t.json("POST", "/api/reports/upload", { body: form, cookie });
}

const count = async (query: string) => Number((await t.deps.store.rows<{ n: unknown }>(sql.raw(query)))[0]!.n ?? 0);

test("a gzip report is read in batches as it is decompressed: no batch holds the whole report", async () => {
  const batches: AggregateRecord[][] = [];
  const result = await streamAggregate(gzipSync(strToU8(report("batches"))), DEFAULT_LIMITS, {
    head: async (head) => (expect(head.reportId).toBe("batches"), true),
    records: async (batch) => void batches.push(batch),
  });
  expect(result).toMatchObject({ recordCount: RECORDS, complete: true, head: { reportId: "batches", policy: { domain: "example.com" } } });
  expect(batches.length).toBeGreaterThan(1);
  expect(batches.reduce((n, b) => n + b.length, 0)).toBe(RECORDS);
  expect(Math.max(...batches.map((b) => b.length))).toBeLessThan(RECORDS);
  expect(batches.slice(0, -1).every((b) => b.length >= RECORD_BATCH)).toBe(true);
  expect(batches.flat().map((r) => r.sourceIp).slice(0, 3)).toEqual(["10.1.0.0", "10.1.0.1", "10.1.0.2"]);
}, 120_000);

test("a large uploaded report is stored whole, with its counts and roll-ups, and once", async () => {
  const { cookie, orgId } = await setUp();
  const bytes = gzipSync(strToU8(report("large-1")));
  const res = await upload(cookie, "large.xml.gz", bytes);
  expect(res.status).toBe(200);
  expect(res.body.results[0]).toMatchObject({ status: "ingested", kind: "aggregate", reports: [{ domain: "example.com", reportId: "large-1", recordCount: RECORDS, messageCount: messages() }] });
  expect(await count(`SELECT count(*) AS n FROM aggregate_records WHERE org_id = '${orgId}'`)).toBe(RECORDS);
  // each with its DKIM and SPF result
  expect(await count(`SELECT count(*) AS n FROM aggregate_records WHERE org_id = '${orgId}' AND dkim_results LIKE '[[%]]' AND spf_results LIKE '[[%]]'`)).toBe(RECORDS);
  expect(await count(`SELECT record_count AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(RECORDS);
  expect(await count(`SELECT message_count AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(messages());
  expect(await count(`SELECT pass_count AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(passing());
  // roll-ups written batch by batch add up to the report
  expect(await count(`SELECT sum(messages) AS n FROM daily_domain_stats WHERE org_id = '${orgId}'`)).toBe(messages());
  expect(await count(`SELECT sum(passed) AS n FROM daily_domain_stats WHERE org_id = '${orgId}'`)).toBe(passing());
  expect(await count(`SELECT sum(messages) AS n FROM daily_sender_stats WHERE org_id = '${orgId}'`)).toBe(messages());
  expect(await count(`SELECT count(*) AS n FROM daily_sender_stats WHERE org_id = '${orgId}'`)).toBe(ADDRESSES);

  const again = await upload(cookie, "large-again.xml.gz", bytes);
  expect(again.body.results[0]).toMatchObject({ status: "duplicate", reports: [{ reportId: "large-1", recordCount: RECORDS, messageCount: messages() }] });
  expect(await count(`SELECT count(*) AS n FROM aggregate_records`)).toBe(RECORDS);
  expect(await count(`SELECT sum(messages) AS n FROM daily_domain_stats`)).toBe(messages());
}, 120_000);

test("a report refused after thousands of its records were written leaves nothing stored", async () => {
  const { cookie } = await setUp();
  const broken = report("broken").replace("</feedback>", "  <record><row><source_ip>10.9.9.9</source_ip></record>\n</feedback>");
  const res = await upload(cookie, "broken.xml.gz", gzipSync(strToU8(broken)));
  expect(res.body.results[0]).toMatchObject({ status: "rejected" });
  expect(res.body.results[0].error).toContain("malformed");
  for (const table of ["aggregate_reports", "aggregate_records", "daily_domain_stats", "daily_sender_stats"]) {
    expect([table, await count(`SELECT count(*) AS n FROM ${table}`)]).toEqual([table, 0]);
  }
  // over the record bound: refused whole as well
  const limited = await streamAggregate(strToU8(report("bound", 10)), { ...DEFAULT_LIMITS, maxRecords: 5 }, { head: async () => true, records: async () => {} }).catch((error) => error);
  expect(String(limited.message)).toContain("more than 5 records");
}, 120_000);

/** What a sink is handed, in order, with the head's dates as they arrive (Date objects, not strings). */
async function readWith(read: typeof streamAggregate, bytes: Uint8Array, options: { stopAtHead?: boolean; limits?: typeof DEFAULT_LIMITS } = {}) {
  const calls: unknown[] = [];
  const sink: RecordSink = {
    async head(head, whole) {
      expect(head.dateBegin).toBeInstanceOf(Date);
      calls.push({ head, whole: whole ?? null });
      return !options.stopAtHead;
    },
    async records(batch) {
      calls.push({ batch });
    },
  };
  const result = await read(bytes, options.limits ?? DEFAULT_LIMITS, sink).catch((error: Error) => error);
  if (!(result instanceof Error)) expect(result.head.dateEnd).toBeInstanceOf(Date);
  return { calls, result };
}

test("read on a worker thread, a report hands the sink the same head, batches and result as read here", async () => {
  const gz = gzipSync(strToU8(report("on-worker")));
  const before = workerReads.onWorker;
  const there = await readWith(streamAggregateOnWorker, gz);
  expect(workerReads.onWorker).toBe(before + 1);
  const here = await readWith(streamAggregate, gz);
  expect(there.calls.length).toBeGreaterThan(2);
  expect(there.calls).toEqual(here.calls);
  expect(there.result).toEqual(here.result);
  // a report that ends within its first batch: the head comes with every record (then the one batch)
  const small = strToU8(report("small", 50));
  const smallThere = await readWith(streamAggregateOnWorker, small);
  expect(smallThere.calls).toHaveLength(2);
  expect((smallThere.calls[0] as { whole: AggregateRecord[] }).whole).toHaveLength(50);
  expect(smallThere).toEqual(await readWith(streamAggregate, small));
  // the sink stops at the head (the report is stored already): nothing more is read
  const stopped = await readWith(streamAggregateOnWorker, gz, { stopAtHead: true });
  expect(stopped.calls).toHaveLength(1);
  expect(stopped.result).toMatchObject({ recordCount: 0, complete: false, head: { reportId: "on-worker" } });
}, 120_000);

test("read on a worker thread, a report is refused as it is here, and a sink's own error comes back as it was thrown", async () => {
  const broken = gzipSync(strToU8(report("broken").replace("</feedback>", "  <record><row><source_ip>10.9.9.9</source_ip></record>\n</feedback>")));
  const there = await readWith(streamAggregateOnWorker, broken);
  const here = await readWith(streamAggregate, broken);
  expect(there.result).toBeInstanceOf(ReportRefusedError);
  expect(there.result).toMatchObject({ message: (here.result as Error).message, code: (here.result as ReportRefusedError).code });
  // the batches before the fault were handed over, as they are here (the caller's transaction undoes them)
  expect(there.calls).toEqual(here.calls);
  const bounded = await readWith(streamAggregateOnWorker, strToU8(report("bound", 10)), { limits: { ...DEFAULT_LIMITS, maxRecords: 5 } });
  expect((bounded.result as Error).message).toContain("more than 5 records");
  // a gzip of something other than XML is for the whole-file parser
  expect((await readWith(streamAggregateOnWorker, gzipSync(strToU8('{"not":"xml"}')))).result).toBeInstanceOf(NotStreamable);
  class Foreign extends Error {}
  const thrown = await streamAggregateOnWorker(gzipSync(strToU8(report("foreign"))), DEFAULT_LIMITS, {
    head: async () => {
      throw new Foreign("not one of your domains");
    },
    records: async () => {},
  }).catch((error) => error);
  expect(thrown).toBeInstanceOf(Foreign);
}, 120_000);

test("a reading worker that read a report to its end reads the next one; one whose reading its caller stopped is ended; a kept one that ends is not used; a kept one ends when unused", async () => {
  const gz = (id: string) => gzipSync(strToU8(report(id)));
  const first = await readWith(streamAggregateOnWorker, gz("kept-1"));
  expect(first.result).toMatchObject({ recordCount: RECORDS, complete: true });
  expect(keptReadingWorker()).not.toBeNull();
  // the next report: read by the kept worker, to the same result as here
  let reused = workerReads.reused;
  const second = await readWith(streamAggregateOnWorker, gz("kept-2"));
  expect(workerReads.reused).toBe(reused + 1);
  expect(second).toEqual(await readWith(streamAggregate, gz("kept-2")));
  // a refusal ends the worker's reading too (its last batches acknowledged after it): kept, and it reads the next one whole
  const broken = gzipSync(strToU8(report("kept-broken").replace("</feedback>", "  <record><row><source_ip>10.9.9.9</source_ip></record>\n</feedback>")));
  expect((await readWith(streamAggregateOnWorker, broken)).result).toBeInstanceOf(ReportRefusedError);
  expect(keptReadingWorker()).not.toBeNull();
  reused = workerReads.reused;
  const third = await readWith(streamAggregateOnWorker, gz("kept-3"));
  expect(workerReads.reused).toBe(reused + 1);
  expect(third).toEqual(await readWith(streamAggregate, gz("kept-3")));
  // the caller stops at a batch (its write failed): the worker, still reading, is ended, not kept
  const failed = await streamAggregateOnWorker(gz("kept-4"), DEFAULT_LIMITS, {
    head: async () => true,
    records: async () => {
      throw new Error("the write failed");
    },
  }).catch((error: Error) => error);
  expect((failed as Error).message).toBe("the write failed");
  expect(keptReadingWorker()).toBeNull();
  reused = workerReads.reused;
  expect((await readWith(streamAggregateOnWorker, gz("kept-5"))).result).toMatchObject({ recordCount: RECORDS });
  expect(workerReads.reused).toBe(reused);
  // a kept worker that ends by itself is not handed the next report
  keptReadingWorker()!.terminate();
  for (let i = 0; i < 100 && keptReadingWorker(); i++) await Bun.sleep(20);
  expect(keptReadingWorker()).toBeNull();
  reused = workerReads.reused;
  expect((await readWith(streamAggregateOnWorker, gz("kept-ended"))).result).toMatchObject({ recordCount: RECORDS, complete: true });
  expect(workerReads.reused).toBe(reused);
  // unused for readingWorkerTiming.keptMs, the kept worker ends
  expect(keptReadingWorker()).not.toBeNull();
  const keptMs = readingWorkerTiming.keptMs;
  readingWorkerTiming.keptMs = 50;
  try {
    await readWith(streamAggregateOnWorker, gz("kept-6"));
    expect(keptReadingWorker()).not.toBeNull();
    for (let i = 0; i < 100 && keptReadingWorker(); i++) await Bun.sleep(20);
    expect(keptReadingWorker()).toBeNull();
  } finally {
    readingWorkerTiming.keptMs = keptMs;
  }
}, 120_000);

test(`at most ${MAX_READING_WORKERS} reports are read on worker threads at once: one more is read on the calling thread, to the same result`, async () => {
  const gz = gzipSync(strToU8(report("at-once", RECORD_BATCH * 2)));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const before = { ...workerReads };
  const counted: number[] = [];
  const read = () => {
    let n = 0;
    return streamAggregateOnWorker(gz, DEFAULT_LIMITS, {
      // every reading waits at its head until all have begun
      head: async () => (await held, true),
      records: async (batch) => void (n += batch.length),
    }).then((result) => (counted.push(n), result));
  };
  const readings = Array.from({ length: MAX_READING_WORKERS + 1 }, read);
  // the one over the bound began on this thread, at once
  expect(workerReads.busy).toBe(before.busy + 1);
  release();
  const results = await Promise.all(readings);
  expect(workerReads.onWorker).toBe(before.onWorker + MAX_READING_WORKERS);
  expect(counted).toEqual(Array(MAX_READING_WORKERS + 1).fill(RECORD_BATCH * 2));
  expect(results.every((r) => r.recordCount === RECORD_BATCH * 2 && r.complete)).toBe(true);
  // with the workers done, the next is read on one again
  await read();
  expect(workerReads.onWorker).toBe(before.onWorker + MAX_READING_WORKERS + 1);
}, 120_000);

test("an uploaded report large enough is read on a worker thread: stored whole, or when refused, not at all", async () => {
  const { cookie, orgId } = await setUp();
  // sent as plain XML, the report is over ten times WORKER_MIN_COMPRESSED_BYTES
  const xml = strToU8(report("large-plain"));
  expect(worthAWorker(xml)).toBe(true);
  const before = workerReads.onWorker;
  const res = await upload(cookie, "large.xml", xml);
  expect(res.body.results[0]).toMatchObject({ status: "ingested", reports: [{ reportId: "large-plain", recordCount: RECORDS, messageCount: messages() }] });
  expect(workerReads.onWorker).toBe(before + 1);
  expect(await count(`SELECT count(*) AS n FROM aggregate_records WHERE org_id = '${orgId}'`)).toBe(RECORDS);
  expect(await count(`SELECT pass_count AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(passing());
  expect(await count(`SELECT sum(messages) AS n FROM daily_sender_stats WHERE org_id = '${orgId}'`)).toBe(messages());

  const broken = strToU8(report("broken-plain").replace("</feedback>", "  <record><row><source_ip>10.9.9.9</source_ip></record>\n</feedback>"));
  const refused = await upload(cookie, "broken.xml", broken);
  expect(refused.body.results[0]).toMatchObject({ status: "rejected" });
  expect(refused.body.results[0].error).toContain("malformed");
  expect(workerReads.onWorker).toBe(before + 2);
  expect(await count(`SELECT count(*) AS n FROM aggregate_reports WHERE org_id = '${orgId}'`)).toBe(1);
  expect(await count(`SELECT count(*) AS n FROM aggregate_records WHERE org_id = '${orgId}'`)).toBe(RECORDS);
  expect(await count(`SELECT sum(messages) AS n FROM daily_sender_stats WHERE org_id = '${orgId}'`)).toBe(messages());
}, 120_000);
