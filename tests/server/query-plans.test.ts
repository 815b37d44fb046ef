/**
 * The query plans of the dashboard's and lists' hot read paths (src/features/dashboard/hot-paths.ts):
 * every SQL statement a hot path runs is captured and explained — EXPLAIN QUERY PLAN on SQLite,
 * EXPLAIN with sequential scans priced out on PostgreSQL (so a Seq Scan means no index could
 * serve the query). A full scan of a records table (aggregate_records,
 * failure_reports) or of a roll-up table fails, and so does any read of a records table by a
 * path that answers from the roll-ups alone.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domains } from "../../src/db/schema";
import { hotPaths } from "../../src/features/dashboard/hot-paths";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";

const DAY = 86_400_000;
const NOW = new Date(Math.floor(Date.now() / DAY) * DAY + 12 * 3_600_000);
const ago = (days: number) => new Date(NOW.getTime() - days * DAY);

const RECORD_TABLES = ["aggregate_records", "failure_reports"];
const ROLLUP_TABLES = ["daily_domain_stats", "daily_sender_stats", "dkim_selectors_seen", "daily_country_stats", "source_names"];

let t: TestApp;
let owner: SignedIn;
let domainId: string;

const reverse = async (ip: string) => (ip.startsWith("167.89.") ? ["o1.ptr1.sendgrid.net"] : []);

beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse } as never } });
  owner = await signedInMember(t.deps.store, "owner", "Acme Dental");
  const [row] = await t.deps.store.db
    .insert(domains)
    .values({ orgId: owner.orgId, name: "shop.example", dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial", createdAt: ago(60) })
    .returning({ id: domains.id });
  domainId = row!.id;
  const records = (i: number): GeneratedRecord[] => [
    { sourceIp: "167.89.1.1", count: 50 + i, dkim: "pass", spf: "pass", dkimAuth: [{ domain: "shop.example", selector: "s1", result: "pass" }] },
    { sourceIp: "203.0.113.9", count: 10, dkim: "fail", spf: "fail", disposition: "none" },
    { sourceIp: `198.51.100.${i}`, count: 3, dkim: "fail", spf: "fail", disposition: "quarantine" },
  ];
  for (let i = 0; i < 5; i++) {
    const begin = ago(i);
    const xml = aggregateXml({ orgName: "google.com", reportId: `plan-${i}`, begin, end: new Date(begin.getTime() + DAY - 1000), domain: "shop.example", p: "none", records: records(i) });
    expect((await ingestFile(t.deps, { orgId: owner.orgId, fileName: `r${i}.xml`, bytes: strToU8(xml), source: "upload" })).status).toBe("ingested");
  }
  await reverseDnsSettled();
});
afterEach(() => t.close());

interface Captured {
  sql: string;
  params: unknown[];
}

/** Records every statement the store's drizzle instance runs (the builder's and store.rows'). */
function capture(): { queries: Captured[]; stop: () => void } {
  const session = (t.deps.store.db as unknown as { session: { logger: { logQuery(sql: string, params: unknown[]): void } } }).session;
  const before = session.logger;
  const queries: Captured[] = [];
  session.logger = { logQuery: (sql, params) => queries.push({ sql, params }) };
  return { queries, stop: () => (session.logger = before) };
}

/** The plan of one statement, one line per step. */
async function planOf(q: Captured): Promise<string[]> {
  const store = t.deps.store;
  if (store.dialect === "sqlite") {
    const rows = store.sqlite!.query(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.params as never[])) as { detail: string }[];
    return rows.map((r) => r.detail);
  }
  const client = (store.db as unknown as { session: { client: { begin<T>(fn: (tx: { unsafe(sql: string, params?: unknown[]): Promise<T> }) => Promise<T>): Promise<T> } } }).session.client;
  const rows = (await client.begin(async (tx) => {
    await tx.unsafe("SET LOCAL enable_seqscan = off");
    return tx.unsafe(`EXPLAIN ${q.sql}`, q.params);
  })) as unknown as { "QUERY PLAN": string }[];
  return rows.map((r) => r["QUERY PLAN"]);
}

/** What is wrong with a plan, or null. */
function problemOf(plan: string[], rollupsOnly: boolean, sql: string): string | null {
  const tables = [...RECORD_TABLES, ...ROLLUP_TABLES];
  for (const line of plan) {
    for (const table of tables) {
      // SQLite names a table by its alias in the plan: look the alias up in the statement
      const aliases = [table, ...[...sql.matchAll(new RegExp(`["\`]?${table}["\`]?\\s+(?:AS\\s+)?["\`]?(\\w+)`, "gi"))].map((m) => m[1]!)].filter((a) => !/^(WHERE|JOIN|ON|LEFT|INNER|GROUP|ORDER|LIMIT)$/i.test(a));
      for (const name of aliases) {
        if (new RegExp(`^\\s*SCAN ${name}\\b`).test(line) || new RegExp(`Seq Scan on ${table}\\b`).test(line)) return `full scan of ${table}: ${line.trim()}`;
      }
    }
  }
  if (rollupsOnly) for (const table of ["aggregate_records"]) if (new RegExp(`\\b${table}\\b`).test(sql)) return `reads ${table}, but answers from the roll-ups`;
  return null;
}

describe("query plans of the hot read paths", () => {
  test("no hot path scans a records table or a roll-up whole; roll-up paths never read the records", async () => {
    const senders = (await t.json("GET", "/api/senders", { cookie: owner.cookie })).body as { key: string }[];
    const problems: string[] = [];
    let explained = 0;
    for (const hot of hotPaths({ domainId, senderKey: senders[0]?.key ?? null })) {
      const { queries, stop } = capture();
      let status: number;
      try {
        status = (await t.request("GET", hot.path, { cookie: owner.cookie })).status;
      } finally {
        stop();
      }
      expect({ path: hot.label, status }).toEqual({ path: hot.label, status: 200 });
      for (const q of queries) {
        if (!/^\s*(select|with)\b/i.test(q.sql)) continue;
        const problem = problemOf(await planOf(q), hot.rollupsOnly, q.sql);
        explained++;
        if (problem) problems.push(`${hot.label}: ${problem}\n    ${q.sql.replace(/\s+/g, " ").slice(0, 300)}`);
      }
    }
    expect(explained).toBeGreaterThan(20);
    expect(problems).toEqual([]);
  });

  test("the tasks read the window's failing mail from the roll-up's failing-rows index alone, without a lookup of each row", async () => {
    const { queries, stop } = capture();
    try {
      expect((await t.request("GET", "/api/tasks", { cookie: owner.cookie })).status).toBe(200);
    } finally {
      stop();
    }
    // its settled days and its last two (read-cache.ts, windowSums)
    const failing = queries.filter((q) => /FROM daily_sender_stats s\s+WHERE[\s\S]*first_failed_at IS NOT NULL/i.test(q.sql));
    expect(failing.length).toBe(2);
    for (const part of failing) {
      const plan = (await planOf(part)).join("\n");
      if (t.deps.store.dialect === "sqlite") expect(plan).toContain("USING COVERING INDEX daily_sender_stats_org_day_failing_idx");
      else expect(plan).toMatch(/Index (Only )?Scan using daily_sender_stats_org_day_failing_idx/);
    }
  });

  test("the dashboard reads each domain's last report as of 30 days ago from the report list's index alone", async () => {
    const { queries, stop } = capture();
    try {
      expect((await t.request("GET", "/api/dashboard/stats", { cookie: owner.cookie })).status).toBe(200);
    } finally {
      stop();
    }
    const lastReports = queries.filter((q) => /FROM aggregate_reports WHERE org_id = \S+ AND processed_at <= \S+ GROUP BY domain_id/i.test(q.sql.replace(/\s+/g, " ")));
    expect(lastReports.length).toBe(1);
    const plan = (await planOf(lastReports[0]!)).join("\n");
    if (t.deps.store.dialect === "sqlite") expect(plan).toContain("USING COVERING INDEX aggregate_reports_org_list_idx");
    else expect(plan).toContain("Index Only Scan using aggregate_reports_org_list_idx");
  });

  test("the domain page reads only its domain's days of the per-address roll-up, on the (organization, domain, day) index", async () => {
    const { queries, stop } = capture();
    try {
      expect((await t.request("GET", `/api/domains/${domainId}/sources`, { cookie: owner.cookie })).status).toBe(200);
    } finally {
      stop();
    }
    // its settled days and its last two (read-cache.ts, windowSums)
    const days = queries.filter((q) => /FROM daily_sender_stats s\s+(INDEXED BY \S+\s+)?WHERE s\.org_id = \S+ AND s\.domain_id = /i.test(q.sql));
    expect(days.length).toBe(2);
    for (const part of days) {
      const plan = (await planOf(part)).join("\n");
      if (t.deps.store.dialect === "sqlite") expect(plan).toContain("USING INDEX daily_sender_stats_org_domain_day_idx (org_id=? AND domain_id=? AND day>? AND day<?)");
      else expect(plan).toMatch(/(Index Scan using|Bitmap Index Scan on) daily_sender_stats_org_domain_day_idx/);
    }
  });

  test("trends' top sources read the organization's window of the per-address roll-up by index (on SQLite one run of its primary key)", async () => {
    const { queries, stop } = capture();
    try {
      expect((await t.request("GET", "/api/trends/sources?days=30", { cookie: owner.cookie })).status).toBe(200);
    } finally {
      stop();
    }
    // the window (addresses and messages: its settled days and its last two, read-cache.ts windowSums), then the addresses shown whole
    const window = queries.filter((q) => /FROM daily_sender_stats s\s+WHERE s\.org_id = \S+\s+AND s\.day >= /i.test(q.sql) && !/source_ip IN/i.test(q.sql));
    expect(window.length).toBe(2);
    for (const part of window) {
      const plan = (await planOf(part)).join("\n");
      // SQLite: a WITHOUT ROWID table (migration 0025), so the rows are the primary key's pages, with no lookup of each row
      if (t.deps.store.dialect === "sqlite") expect(plan).toContain("USING PRIMARY KEY (org_id=? AND day>? AND day<?)");
      // PostgreSQL keeps no table in key order: an index of the organization's rows, never the table whole
      else expect(plan).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) daily_sender_stats_/);
    }
    const shown = queries.filter((q) => /FROM daily_sender_stats s\b/i.test(q.sql) && /source_ip IN/i.test(q.sql));
    expect(shown.length).toBe(1);
    const shownPlan = (await planOf(shown[0]!)).join("\n");
    // on SQLite by the address index, never the window again
    if (t.deps.store.dialect === "sqlite") expect(shownPlan).toMatch(/USING (COVERING )?INDEX daily_sender_stats_org_ip_idx \(org_id=\? AND source_ip=\?/);
    else expect(shownPlan).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) daily_sender_stats_/);
  });

  test("the MSP portfolio reads every client's figures and task inputs through indexes, from the roll-ups alone", async () => {
    // two clients of the organization, one with the same reports as the organization itself
    const ids: string[] = [];
    for (const name of ["Client One", "Client Two"]) {
      const res = await t.json("POST", "/api/orgs/clients", { cookie: owner.cookie, body: { name } });
      expect(res.status).toBe(201);
      ids.push(res.body.id as string);
    }
    await t.deps.store.db.insert(domains).values({ orgId: ids[0]!, name: "client.example", dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial", createdAt: ago(30) });
    const xml = aggregateXml({ orgName: "google.com", reportId: "plan-client", begin: ago(1), end: new Date(ago(1).getTime() + DAY - 1000), domain: "client.example", p: "none", records: [{ sourceIp: "203.0.113.9", count: 10, dkim: "fail", spf: "fail", disposition: "none" }] });
    expect((await ingestFile(t.deps, { orgId: ids[0]!, fileName: "client.xml", bytes: strToU8(xml), source: "upload" })).status).toBe("ingested");
    const { queries, stop } = capture();
    try {
      const res = await t.json("GET", "/api/portfolio", { cookie: owner.cookie });
      expect(res.status).toBe(200);
      expect(res.body.clients.map((c: { openTasks: number }) => c.openTasks > 0)).toEqual([true, false]);
    } finally {
      stop();
    }
    const problems: string[] = [];
    let overClients = 0;
    for (const q of queries) {
      if (!/^\s*(select|with)\b/i.test(q.sql)) continue;
      if (q.params.some((p) => typeof p === "string" && ids.every((id) => p.includes(id)))) overClients++;
      const problem = problemOf(await planOf(q), true, q.sql);
      if (problem) problems.push(`${problem}\n    ${q.sql.replace(/\s+/g, " ").slice(0, 300)}`);
    }
    // the figures, which the task count reads too: domains with their last check's record, traffic, failing mail, marks, alert events
    expect(overClients).toBeGreaterThanOrEqual(5);
    expect(problems).toEqual([]);
  });

  test("the check sees a full scan: a records query without the organization's index fails it", async () => {
    const plan = await planOf({ sql: "select count(*) from aggregate_records where message_count > 1", params: [] });
    expect(problemOf(plan, false, "select count(*) from aggregate_records where message_count > 1")).toMatch(/^full scan of aggregate_records/);
    const rollup = "select sum(messages) from daily_sender_stats where messages > 1";
    expect(problemOf(await planOf({ sql: rollup, params: [] }), false, rollup)).toMatch(/^full scan of daily_sender_stats/);
    expect(problemOf([], true, "select 1 from aggregate_records")).toMatch(/^reads aggregate_records/);
  });
});
