/**
 * Report ingestion on PostgreSQL: real report files through `ingestFile` into a throw-away
 * PostgreSQL database, read back through the services users see (report lists and details,
 * senders, the dashboard), so the PostgreSQL writer and the portable SQL are exercised for real.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq, sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { testConfig } from "../../config";
import { openPostgresStore, type Store } from "../../db";
import type { OrgContext } from "../../http/access";
import { RateLimiter } from "../../http/rate-limit";
import { memoryLogger } from "../../log";
import { postgresMissing, startPostgres, type PostgresCluster } from "../../../tests/support/postgres";
import { fixture, sampleAggregate, xmlBytes, zip } from "../../../tests/support/report-fixtures";
import { parseReportFile } from "../../lib/reports/parse";
import { GroupIngest } from "./group-ingest";
import type { GeneratedRecord } from "../../lib/reports/generate";
import { dashboardStats, listThreats } from "../dashboard/service";
import { listDomains } from "../domains/service";
import { listFailureReports, listTlsReports } from "./failure-tls";
import { ingestFile } from "./ingest";
import { listSenders } from "./senders-view";
import { authKey, writeSenderDaysPostgres, type RollupToWrite } from "./rollups";
import { getReport, listReports, selectorsSeen } from "./service";

const NOW = new Date("2024-01-03T12:00:00Z");
let cluster: PostgresCluster | null = null;
let store: Store;
/** the URL of `store`'s database (another store on it is another node) */
let storeUrl = "";
let ctx: OrgContext;

if (postgresMissing) console.warn(`skipping PostgreSQL ingestion tests: ${postgresMissing}`);

beforeAll(async () => {
  if (!postgresMissing) cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await store?.close();
  await cluster?.stop();
});

beforeEach(async () => {
  if (!cluster) return;
  await store?.close();
  storeUrl = await cluster.createDatabase();
  store = await openPostgresStore(storeUrl);
  const { organizations, users, domains } = store.t;
  const [org] = await store.write((tx) => tx.insert(organizations).values({ name: "Acme", slug: `acme-${crypto.randomUUID().slice(0, 8)}` }).returning());
  const [user] = await store.write((tx) => tx.insert(users).values({ name: "Owner", email: `owner-${crypto.randomUUID()}@example.test` }).returning());
  await store.write((tx) => tx.insert(domains).values({ orgId: org!.id, name: "example.com", createdAt: new Date("2023-12-01T00:00:00Z") }));
  const deps = { config: testConfig(), store, log: memoryLogger(), limiter: new RateLimiter(store), now: () => NOW };
  ctx = { ...deps, actor: { user: { id: user!.id, name: user!.name, email: user!.email } as never, orgId: org!.id, role: "owner" } };
});

const ingest = (bytes: Uint8Array, fileName = "report.xml") => ingestFile(ctx, { orgId: ctx.actor.orgId, fileName, bytes, source: "upload" });

describe.skipIf(postgresMissing !== null)("reports on PostgreSQL", () => {
  test("a real aggregate report is stored once and read back through the report list and detail", async () => {
    const first = await ingest(fixture("rfc7489-google.xml"));
    expect(first).toMatchObject({ status: "ingested", kind: "aggregate", reports: [{ domain: "example.com", orgName: "google.com", reportId: "1234", recordCount: 1, messageCount: 3 }] });
    expect(await ingest(fixture("rfc7489-google.xml"), "again.xml")).toMatchObject({ status: "duplicate", reports: [{ id: first.reports[0]!.id }] });

    const page = await listReports(ctx);
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ orgName: "google.com", totalMessages: 3, passRate: 100, domain: "example.com", reportId: "1234", dateBegin: "2024-01-01T00:00:00.000Z" });
    const detail = await getReport(ctx, first.reports[0]!.id);
    expect(detail.records).toEqual([
      expect.objectContaining({ sourceIp: "209.85.220.41", count: 3, dmarcPass: true, dkimResults: [expect.objectContaining({ domain: "example.com", selector: "s1", result: "pass" })], spfResults: [expect.objectContaining({ domain: "example.com", result: "pass" })] }),
    ]);
    // the domain shows when its last report arrived
    expect((await listDomains(ctx))[0]!.lastReportAt).toBe("2024-01-01T23:59:59.000Z");
    expect(await selectorsSeen(ctx, ctx.actor.orgId, "EXAMPLE.com", { now: NOW })).toEqual(["s1"]);
  });

  test("a report of thousands of records is written in batches, each record with its own auth results", async () => {
    const records = Array.from({ length: 2_500 }, (_, i) => ({
      sourceIp: `10.${(i >> 8) & 255}.${i & 255}.1`,
      count: i + 1,
      dkim: "pass" as const,
      spf: "fail" as const,
      dkimAuth: [{ domain: "example.com", selector: `sel${i}`, result: "pass" }],
      spfAuth: [{ domain: `bounce${i}.example.com`, result: "fail" }],
    }));
    const result = await ingest(xmlBytes(sampleAggregate("example.com", { reportId: "big", records })));
    expect(result.reports[0]).toMatchObject({ recordCount: 2_500, messageCount: (2_500 * 2_501) / 2 });
    const detail = await getReport(ctx, result.reports[0]!.id);
    expect(detail.records.length).toBeGreaterThan(0);
    for (const r of detail.records) {
      const i = r.count - 1;
      expect(r.dkimResults).toEqual([expect.objectContaining({ selector: `sel${i}` })]);
      expect(r.spfResults).toEqual([expect.objectContaining({ domain: `bounce${i}.example.com` })]);
    }
  });

  test("failure and TLS reports are stored and listed; a file with a foreign domain stores nothing", async () => {
    expect((await ingest(fixture("arf-auth-failure.eml"), "ruf.eml")).status).toBe("ingested");
    expect((await ingest(fixture("tls-google.json"), "tls.json")).status).toBe("ingested");
    expect((await ingest(fixture("tls-google.json"), "tls-again.json")).status).toBe("duplicate");
    expect((await listFailureReports(ctx)).items).toEqual([expect.objectContaining({ domain: "example.com", sourceIp: "192.0.2.1" })]);
    expect((await listTlsReports(ctx)).items).toEqual([expect.objectContaining({ policyDomain: "example.com", reporterOrg: "Google Inc." })]);

    const foreign = await ingest(xmlBytes(sampleAggregate("other.example")));
    expect(foreign).toMatchObject({ status: "rejected", code: "foreign_domain" });
    expect((await listReports(ctx)).items).toHaveLength(0);
  });

  test("senders, dashboard figures and threats add up on PostgreSQL", async () => {
    const day = (d: number) => new Date(NOW.getTime() - d * 86_400_000);
    const report = (id: string, begin: Date, records: GeneratedRecord[]) =>
      ingest(xmlBytes(sampleAggregate("example.com", { reportId: id, begin, end: new Date(begin.getTime() + 86_399_000), records })));
    await report("a", day(1.5), [
      { sourceIp: "203.0.113.5", count: 40, dkim: "fail", spf: "fail", disposition: "none" },
      { sourceIp: "209.85.220.41", count: 60, dkim: "pass", spf: "pass" },
    ]);
    await report("b", day(1.2), [{ sourceIp: "203.0.113.5", count: 10, dkim: "fail", spf: "fail", disposition: "reject" }]);

    const senders = await listSenders(ctx, { days: 30 });
    const messages = senders.reduce((n, s) => n + s.messages, 0);
    expect(messages).toBe(110);
    const stats = await dashboardStats(ctx);
    expect(stats).toMatchObject({ totalDomains: 1, reportsProcessed: 2, messagesLast30Days: 110, passRateLast30Days: 54.5 });
    const threats = await listThreats(ctx);
    expect(threats).toEqual([expect.objectContaining({ ipAddress: "203.0.113.5", attemptCount: 50, deliveredCount: 40, domains: ["example.com"] })]);
  });

  /** `store` calling `before` ahead of each insert of records (through `store.rows`; a small whole report's goes in with its report's row) */
  const beforeRecordInserts = (before: () => Promise<void>): Store => {
    const dialect = new PgDialect();
    return new Proxy(store, {
      get(target, prop) {
        if (prop === "rows")
          return async (query: SQL) => {
            if (dialect.sqlToQuery(query).sql.includes("INSERT INTO aggregate_records")) await before();
            return target.rows(query);
          };
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  };

  test("a bulk group's files are sent without waiting for each: the next file's report goes out before the last one's answer, each report and its records in one statement", async () => {
    let sent = 0;
    let sentBeforeFirstAnswer = 0;
    let secondSent!: () => void;
    const second = new Promise<void>((resolve) => (secondSent = resolve));
    const deps = {
      ...ctx,
      store: beforeRecordInserts(async () => {
        sent++;
        if (sent === 2) secondSent();
        if (sent > 1) return;
        // the first file's statement is held until the next one is sent (or a while, when the writer waits for each)
        await Promise.race([second, Bun.sleep(2000)]);
        sentBeforeFirstAnswer = sent;
      }),
    };
    const answers: string[] = [];
    const group = new GroupIngest(deps, { onResult: (r) => void answers.push(r.status) });
    for (const id of ["ahead-1", "ahead-2", "ahead-3"]) {
      const xml = xmlBytes(sampleAggregate("example.com", { reportId: id, records: [{ sourceIp: "192.0.2.7", count: 2, dkim: "pass", spf: "pass" }] }));
      await group.add({ orgId: ctx.actor.orgId, fileName: `${id}.xml`, bytes: xml, source: "cli", parsed: await parseReportFile(xml) });
    }
    await group.finish();
    expect(answers).toEqual(["ingested", "ingested", "ingested"]);
    expect(sentBeforeFirstAnswer).toBeGreaterThanOrEqual(2);
    // one statement a report: its row and its record
    expect(sent).toBe(3);
    const [counts] = await store.rows<{ reports: string; records: string }>(sql`SELECT (SELECT count(*) FROM aggregate_reports) AS reports, (SELECT count(*) FROM aggregate_records) AS records`);
    expect([Number(counts!.reports), Number(counts!.records)]).toEqual([3, 3]);
  });

  test("a report's record inserts are sent without waiting for each, and one that fails fails the report: nothing of it is stored", async () => {
    // 6,000 records: two streamed batches, six inserts of 1,000 records, more than are sent at once
    const records = Array.from({ length: 6_000 }, (_, i) => ({ sourceIp: `10.9.${(i >> 8) & 255}.${i & 255}`, count: 1, dkim: "pass" as const, spf: "pass" as const }));
    const bytes = xmlBytes(sampleAggregate("example.com", { reportId: "failing-insert", records }));
    let inserts = 0;
    const failing = beforeRecordInserts(async () => {
      if (++inserts === 2) throw new Error("the database refused these records");
    });
    const result = await ingestFile({ ...ctx, store: failing }, { orgId: ctx.actor.orgId, fileName: "failing.xml", bytes, source: "upload" });
    expect(result).toMatchObject({ status: "rejected", code: "unavailable" });
    const counts = await store.rows<{ reports: string; records: string; senders: string }>(sql`SELECT (SELECT count(*) FROM aggregate_reports) AS reports,
      (SELECT count(*) FROM aggregate_records) AS records, (SELECT count(*) FROM daily_sender_stats) AS senders`);
    expect(counts.map((c) => [Number(c.reports), Number(c.records), Number(c.senders)])).toEqual([[0, 0, 0]]);
    // the same report stores whole once nothing fails
    expect((await ingest(bytes)).status).toBe("ingested");
    const [stored] = await store.rows<{ n: string }>(sql`SELECT count(*) AS n FROM aggregate_records`);
    expect(Number(stored!.n)).toBe(6_000);
  });

  test.each(["a report read as it streams", "a report of a zip file, read whole", "a bulk group"])(
    "a report write takes the rows its end updates at its start: a DNS check and a mark made meanwhile wait for it, and it is written once (%s)",
    async (path) => {
      const orgId = ctx.actor.orgId;
      const { domains } = store.t;
      const [domain] = await store.rows<{ id: string }>(sql`SELECT id FROM domains WHERE org_id = ${orgId}`);
      // another node: a DNS check updating the domain's row, and a mark raising the roll-up version
      const other = await openPostgresStore(storeUrl);
      let recordInserts = 0;
      let meanwhile: Promise<unknown> | null = null;
      const deps = {
        ...ctx,
        store: beforeRecordInserts(async () => {
          recordInserts++;
          if (meanwhile) return;
          meanwhile = Promise.all([
            other.write((tx) => tx.update(domains).set({ spfStatus: "invalid" }).where(eq(domains.id, domain!.id))),
            other.write(() => other.rows(sql`UPDATE rollup_versions SET version = version + 1 WHERE org_id = ${orgId}`)),
          ]);
          // they commit now unless this write holds their rows (then they wait for its commit)
          await Promise.race([meanwhile, Bun.sleep(300)]);
        }),
      };
      const xml = xmlBytes(sampleAggregate("example.com", { reportId: "held", records: [{ sourceIp: "192.0.2.1", count: 3, dkim: "pass", spf: "fail" }] }));
      let status: string;
      if (path === "a bulk group") {
        const answers: string[] = [];
        const group = new GroupIngest(deps, { onResult: (r) => void answers.push(r.status) });
        await group.add({ orgId, fileName: "held.xml", bytes: xml, source: "cli", parsed: await parseReportFile(xml) });
        await group.finish();
        status = answers.join();
      } else {
        const bytes = path === "a report read as it streams" ? xml : zip({ "held.xml": xml });
        status = (await ingestFile(deps, { orgId, fileName: "held", bytes, source: "upload" })).status;
      }
      await meanwhile;
      await other.close();
      expect(status).toBe("ingested");
      // the report's transaction ran once: it did not fail at its end on a row changed meanwhile
      expect(recordInserts).toBe(1);
      const [row] = await store.rows<{ spf_status: string; last_report_at: unknown }>(sql`SELECT spf_status, last_report_at FROM domains WHERE id = ${domain!.id}`);
      expect(row!.spf_status).toBe("invalid");
      expect(row!.last_report_at).not.toBeNull();
    },
  );

  test("roll-ups written together that meet one sender row (one organization, day and policy domain) both count", async () => {
    // the rows of many roll-ups go in one statement, which may meet a row only once: these two go in two
    const orgId = ctx.actor.orgId;
    const [first] = await store.rows<{ id: string }>(sql`SELECT id FROM domains WHERE org_id = ${orgId}`);
    const [second] = await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.net" }).returning({ id: store.t.domains.id }));
    const rollup = (sourceIp: string, messages: number): RollupToWrite["rollup"] => ({
      day: 19_723,
      domain: null,
      sources: [
        { sourceIp, country: "US", city: null, messages, passed: messages, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: messages, failedDelivered: 0,
          firstFailedAt: null, lastFailedAt: null, lastBegin: 1_704_067_200, auth: new Map([[authKey("dkim", "example.com", "s1", "pass"), messages]]) },
      ],
      selectors: new Map(),
      begin: 1_704_067_200,
    });
    await store.write(() =>
      writeSenderDaysPostgres(store, [
        { ctx: { orgId, domainId: first!.id }, policyDomain: "example.com", rollup: rollup("192.0.2.1", 3) },
        { ctx: { orgId, domainId: second!.id }, policyDomain: "example.net", rollup: rollup("192.0.2.1", 5) },
        { ctx: { orgId, domainId: second!.id }, policyDomain: "example.com", rollup: rollup("192.0.2.1", 4) },
      ]),
    );
    const rows = await store.rows<{ policy_domain: string; messages: string; auth: string }>(
      sql`SELECT policy_domain, messages, auth FROM daily_sender_stats WHERE org_id = ${orgId} ORDER BY policy_domain`,
    );
    expect(rows.map((r) => [r.policy_domain, Number(r.messages), Object.values(JSON.parse(r.auth) as Record<string, number>).map(Number)])).toEqual([
      ["example.com", 7, [7]],
      ["example.net", 5, [5]],
    ]);
  });
});
