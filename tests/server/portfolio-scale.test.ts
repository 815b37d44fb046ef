/**
 * The portfolio over many clients: GET /api/portfolio reads every client's figures with one
 * statement per figure over all client ids; each client's figures must still be exactly what
 * its own screens and the verbs behind them answer, acting in the client. Forty clients with
 * different mixes of domains, reports received at different times (so the 7- and 30-day
 * windows differ), failing sources, approved senders and alert events.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domains, orgEvents, senderMarks } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { failingSources, messagesProcessedBetween } from "../../src/features/reports/stats";
import { utcDay } from "../../src/features/reports/rollups";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { signIn, signedInMember, type SignedIn } from "../support/fixtures";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000 + 437); // not on a whole second
const CLIENTS = 40;

let t: TestApp;
let msp: SignedIn;
let clock = NOW;
let seq = 0;

beforeEach(async () => {
  clock = NOW;
  t = await makeTestApp({ deps: { now: () => clock, resolver: { reverse: async () => [] } as never } });
  msp = await signedInMember(t.deps.store, "owner", "Northwind IT");
});
afterEach(() => t.close());

const statuses = ["protected", "partial", "vulnerable", "pending"];
const policies = ["reject", "quarantine", "none", null, "bogus"];

/** Reports ingested as if received `receivedAgo` before now. */
async function ingest(orgId: string, domain: string, records: GeneratedRecord[], receivedAgo: number) {
  clock = new Date(NOW.getTime() - receivedAgo);
  const end = new Date(clock.getTime() - 2 * HOUR);
  const xml = aggregateXml({ orgName: "google.com", reportId: `r-${++seq}`, begin: new Date(end.getTime() - DAY), end, domain, p: "none", records });
  const result = await ingestFile(t.deps, { orgId, fileName: `r${seq}.xml`, bytes: strToU8(xml), source: "upload" });
  clock = NOW;
  expect(result.status).toBe("ingested");
}

/** `n` clients with domains, reports, marks and events; their ids. */
async function world(n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let c = 0; c < n; c++) {
    const res = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: `Client ${String(c).padStart(2, "0")}` } });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    ids.push(id);
    const domainCount = c % 4; // some clients have no domain at all
    for (let d = 0; d < domainCount; d++) {
      const name = `d${d}.c${c}.example`;
      await t.deps.store.db.insert(domains).values({
        orgId: id,
        name,
        dmarcPolicy: policies[(c + d) % policies.length] ?? null,
        spfStatus: "valid",
        dkimStatus: (c + d) % 2 ? "valid" : "missing",
        overallStatus: statuses[(c * 3 + d) % statuses.length]!,
        createdAt: new Date(NOW.getTime() - 40 * DAY),
        lastCheckedAt: new Date(NOW.getTime() - HOUR),
      });
      if ((c + d) % 3 === 2) continue; // a domain without reports
      // recent mail, mail of 2–3 weeks ago (in the 30 days, not the 7) and mail of 40 days ago (in neither)
      await ingest(id, name, [{ sourceIp: `10.0.${c}.${d}`, count: 100 + c * 7 + d, dkim: "pass", spf: "pass" }, { sourceIp: `203.0.113.${c}`, count: 10 + d, dkim: "fail", spf: "fail", disposition: "none" }, { sourceIp: `198.51.100.${(c * 5 + d) % 250}`, count: 3 + c, dkim: "fail", spf: "fail", disposition: "none" }], (c % 5) * DAY + HOUR);
      if (c % 2) await ingest(id, name, [{ sourceIp: `10.1.${c}.${d}`, count: 50 + c, dkim: "pass", spf: "pass" }, { sourceIp: `192.0.2.${c}`, count: 20, dkim: "fail", spf: "fail", disposition: "none" }], (14 + (c % 7)) * DAY);
      if (c % 3 === 0) await ingest(id, name, [{ sourceIp: `10.2.${c}.${d}`, count: 77, dkim: "pass", spf: "pass" }], 40 * DAY);
    }
    // a source some clients approved is not counted as failing
    if (c % 4 === 1) await t.deps.store.db.insert(senderMarks).values({ orgId: id, senderKey: `ip:203.0.113.${c}`, verdict: "approved", markedAt: NOW } as never);
    if (c % 4 === 2) await t.deps.store.db.insert(senderMarks).values({ orgId: id, senderKey: `ip:198.51.100.${(c * 5) % 250}`, verdict: "not_ours", markedAt: NOW } as never);
    // alert events: in the week, just outside it (also within the same second as its start), long ago, and a test event (never counted)
    const events: [number, string][] = [[HOUR, "reports.stopped"], [7 * DAY + 1000, "reports.stopped"], [7 * DAY + (NOW.getTime() % 1000), "reports.stopped"], [20 * DAY, "reports.stopped"], [DAY, "test"]];
    if (c % 2) events.push([7 * DAY - 1000, "reports.stopped"], [3 * DAY, "reports.stopped"]);
    for (const [ago, type] of events) await t.deps.store.db.insert(orgEvents).values({ orgId: id, type, domain: "x.example", data: "{}", dedupeKey: `k-${++seq}`, occurredAt: new Date(NOW.getTime() - ago) });
  }
  await reverseDnsSettled();
  return ids;
}

test("forty clients: every client's figures are those of its own screens", async () => {
  const ids = await world(CLIENTS);
  const res = await t.json("GET", "/api/portfolio", { cookie: msp.cookie });
  expect(res.status).toBe(200);
  const clients = res.body.clients as any[];
  expect(clients.map((c) => c.id).sort()).toEqual([...ids].sort());

  const today = utcDay(NOW);
  const rate = (x: { messages: number; passing: number }) => (x.messages ? Math.round((x.passing / x.messages) * 1000) / 10 : null);
  let differing7d30d = 0;
  for (const c of clients) {
    const cookie = await signIn(t.deps.store, msp.userId, c.id);
    const stats = (await t.json("GET", "/api/dashboard/stats", { cookie })).body;
    const tasks = (await t.json("GET", "/api/tasks", { cookie })).body as any[];
    const own = (await t.json("GET", "/api/domains", { cookie })).body as any[];
    const events = (await t.json("GET", "/api/events?pageSize=100", { cookie })).body;
    const marks = (await t.deps.store.db.select().from(senderMarks)).filter((m) => m.orgId === c.id && m.verdict === "approved").map((m) => m.senderKey);
    const week = await messagesProcessedBetween(t.deps, c.id, new Date(NOW.getTime() - 7 * DAY), NOW);
    const sources = await failingSources(t.deps, c.id, { fromDay: today - 6, toDay: today, limit: 10_000 });

    expect(c.domains).toBe(stats.totalDomains);
    expect(c.domains).toBe(own.length);
    expect(c.passRate30d).toBe(stats.passRateLast30Days);
    expect(c.messages7d).toBe(week.messages);
    expect(c.passRate7d).toBe(rate(week));
    expect(c.openTasks).toBe(tasks.length);
    expect(c.openTasks).toBe(stats.activeIssues);
    expect(c.failingSources7d).toBe(sources.filter((s) => !marks.includes(`ip:${s.ip}`)).length);
    expect(c.alerts7d).toBe(events.events.filter((e: any) => new Date(e.occurredAt).getTime() >= NOW.getTime() - 7 * DAY).length);
    expect(c.lastReportAt).toBe(own.map((d) => d.lastReportAt).filter(Boolean).sort().at(-1) ?? null);
    const rank = ["vulnerable", "partial", "pending", "protected"];
    expect(c.worstStatus).toBe(own.length ? own.map((d) => d.overallStatus).sort((a, b) => rank.indexOf(a) - rank.indexOf(b))[0] : null);
    const checked = own.filter((d) => d.dmarcPolicy !== null);
    expect(c.policyMix.reject + c.policyMix.quarantine + c.policyMix.none + c.policyMix.missing).toBe(checked.length);
    expect(c.policyMix.reject).toBe(checked.filter((d) => d.dmarcPolicy === "reject").length);
    if (c.messages7d !== stats.messagesLast30Days) differing7d30d++;
  }
  // the world is not trivial: windows differ, and some clients have figures of every kind
  expect(differing7d30d).toBeGreaterThan(5);
  expect(clients.filter((c) => c.failingSources7d > 0).length).toBeGreaterThan(10);
  expect(clients.every((c) => c.alerts7d >= 1)).toBe(true);
  expect(new Set(clients.map((c) => c.alerts7d)).size).toBeGreaterThan(1);
  expect(clients.filter((c) => c.domains === 0).every((c) => c.worstStatus === null && c.lastReportAt === null && c.messages7d === 0)).toBe(true);
});

/** Records every statement the store's drizzle instance runs (as tests/server/query-plans.test.ts does). */
function capture(): { queries: { sql: string; params: unknown[] }[]; stop: () => void } {
  const session = (t.deps.store.db as unknown as { session: { logger: { logQuery(sql: string, params: unknown[]): void } } }).session;
  const before = session.logger;
  const queries: { sql: string; params: unknown[] }[] = [];
  session.logger = { logQuery: (sql, params) => queries.push({ sql, params }) };
  return { queries, stop: () => (session.logger = before) };
}

test("the statements over all clients read each table through an index", async () => {
  await world(6);
  const { queries, stop } = capture();
  const res = await t.json("GET", "/api/portfolio", { cookie: msp.cookie });
  stop();
  expect(res.status).toBe(200);
  expect(res.body.clients).toHaveLength(6);
  // the set-based statements: those given the client ids at once (one parameter: a JSON array on SQLite, an array's text form on PostgreSQL)
  const idsIn = (p: unknown) => (typeof p !== "string" ? 0 : p.startsWith("[") ? JSON.parse(p).length : p.startsWith('{"') ? p.split('","').length : 0);
  const overClients = queries.filter((q) => q.params.some((p) => idsIn(p) === 6));
  // the figures, and every input that decides the open tasks (counted: the window's traffic per
  // domain and the report destinations only shape their text, and are not read)
  const tables = ["domains", "aggregate_reports", "daily_sender_stats", "source_names", "sender_marks", "org_events", "domain_record_history"];
  const read = new Set<string>();
  for (const q of overClients) {
    for (const table of tables) if (new RegExp(`\\b"?${table}"?\\b`).test(q.sql)) read.add(table);
    const store = t.deps.store;
    let plan: string[];
    if (store.dialect === "sqlite") {
      plan = (store.sqlite!.query(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.params as never[])) as { detail: string }[]).map((r) => r.detail);
      // the client ids come as one JSON array parameter (read by json_each)
      const scans = plan.filter((line) => /^SCAN /.test(line) && !/USING (COVERING )?INDEX|^SCAN (\(subquery|g$)|CONSTANT ROW|^SCAN json_each VIRTUAL TABLE/.test(line));
      expect({ sql: q.sql, scans }).toEqual({ sql: q.sql, scans: [] });
    } else {
      const client = (store.db as unknown as { session: { client: { begin<T>(fn: (tx: { unsafe(sql: string, params?: unknown[]): Promise<T> }) => Promise<T>): Promise<T> } } }).session.client;
      const rows = (await client.begin(async (tx) => {
        await tx.unsafe("SET LOCAL enable_seqscan = off");
        return tx.unsafe(`EXPLAIN ${q.sql}`, q.params);
      })) as unknown as { "QUERY PLAN": string }[];
      plan = rows.map((r) => r["QUERY PLAN"]);
      expect({ sql: q.sql, seqScans: plan.filter((line) => /Seq Scan/.test(line)) }).toEqual({ sql: q.sql, seqScans: [] });
    }
  }
  expect([...read].sort()).toEqual([...tables].sort());
});
