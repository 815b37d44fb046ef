/**
 * Daily roll-ups written at ingest and the trends API that reads them: reports spread over 30
 * days with known counts, every field of every day checked, with and without a domain, and
 * again after a duplicate ingest. Rows are written with awaited store queries, so the file runs
 * on SQLite and PostgreSQL.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { asc, eq, sql } from "drizzle-orm";
import { strToU8 } from "fflate";
import { domains, memberships, organizations, sessions, users, type Role } from "../../src/db/schema";
import { newSession, SESSION_COOKIE } from "../../src/features/auth/sessions";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedAggregate, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";

const DAY = 86_400_000;
/** noon UTC today, so "today" is the same UTC day for the whole test */
const NOW = new Date(Math.floor(Date.now() / DAY) * DAY + DAY / 2);
const TODAY = Math.floor(NOW.getTime() / DAY);
const dayStart = (day: number) => new Date(day * DAY);
const isoDay = (day: number) => dayStart(day).toISOString().slice(0, 10);

let t: TestApp;
let seq = 0;

beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse: async () => [] } as never } });
});
afterEach(async () => {
  await reverseDnsSettled();
  await t.close();
});

/** A new organisation with a signed-in member of `role` (awaited inserts: both stores). */
async function member(t: TestApp, role: Role = "owner", name = `Org ${++seq}`) {
  const db = t.deps.store.db;
  const [org] = await db.insert(organizations).values({ name, slug: `org-${seq}-${crypto.randomUUID().slice(0, 8)}` }).returning({ id: organizations.id });
  const [user] = await db.insert(users).values({ name: "Test User", email: `u-${crypto.randomUUID()}@example.test` }).returning({ id: users.id });
  await db.insert(memberships).values({ orgId: org!.id, userId: user!.id, role });
  const { token, row } = newSession(user!.id, org!.id, new Date());
  await db.insert(sessions).values(row);
  return { orgId: org!.id, userId: user!.id, cookie: `${SESSION_COOKIE}=${token}` };
}

async function addDomain(orgId: string, name: string): Promise<string> {
  const [row] = await t.deps.store.db.insert(domains).values({ orgId, name }).returning({ id: domains.id });
  return row!.id;
}

async function ingest(orgId: string, report: GeneratedAggregate, expected: "ingested" | "duplicate" = "ingested") {
  const result = await ingestFile(t.deps, { orgId, fileName: `${report.reportId}.xml`, bytes: strToU8(aggregateXml(report)), source: "upload" });
  expect(result.status).toBe(expected);
}

interface DayCounts {
  messages: number;
  passed: number;
  failed: number;
  quarantined: number;
  rejected: number;
  spfAligned: number;
  dkimAligned: number;
}

/**
 * The reports of one domain on `day` days before today, with counts that differ per day, and the
 * totals they must add up to, written down independently of the roll-up code.
 */
function reportsOfDay(domain: string, ago: number, scale: number): { reports: GeneratedAggregate[]; counts: DayCounts } {
  const day = TODAY - ago;
  const both = scale * (ago + 1); // SPF and DKIM aligned: pass
  const spfOnly = ago % 4; // aligned SPF only: pass
  const dkimOnly = ago % 3; // aligned DKIM only: pass
  const quarantined = ago % 5; // nothing aligned, quarantined
  const rejected = ago % 2 ? 7 : 0; // nothing aligned, rejected
  const none = 1 + (ago % 6); // nothing aligned, delivered
  const records: GeneratedRecord[] = [
    { sourceIp: "209.85.220.41", count: both, dkim: "pass", spf: "pass" },
    ...(spfOnly ? [{ sourceIp: "40.107.22.1", count: spfOnly, dkim: "fail", spf: "pass" }] : []),
    ...(dkimOnly ? [{ sourceIp: "40.107.22.1", count: dkimOnly, dkim: "pass", spf: "fail" }] : []),
    ...(quarantined ? [{ sourceIp: "198.51.100.7", count: quarantined, dkim: "fail", spf: "fail", disposition: "quarantine" }] : []),
    ...(rejected ? [{ sourceIp: "198.51.100.8", count: rejected, dkim: "fail", spf: "fail", disposition: "reject" }] : []),
  ];
  // a second reporter the same day; its range spans two days and counts on its first
  const second: GeneratedRecord[] = [{ sourceIp: "198.51.100.7", count: none, dkim: "fail", spf: "fail", disposition: "none" }];
  const reports: GeneratedAggregate[] = [
    { orgName: "google.com", reportId: `g-${domain}-${ago}`, begin: dayStart(day), end: new Date(dayStart(day).getTime() + DAY - 1000), domain, records },
    { orgName: "Enterprise Outlook", reportId: `o-${domain}-${ago}`, begin: new Date(dayStart(day).getTime() + DAY / 2), end: new Date(dayStart(day).getTime() + DAY * 1.5), domain, records: second },
  ];
  const messages = both + spfOnly + dkimOnly + quarantined + rejected + none;
  const passed = both + spfOnly + dkimOnly;
  return { reports, counts: { messages, passed, failed: messages - passed, quarantined, rejected, spfAligned: both + spfOnly, dkimAligned: both + dkimOnly } };
}

const add = (a: DayCounts, b: DayCounts): DayCounts => ({
  messages: a.messages + b.messages,
  passed: a.passed + b.passed,
  failed: a.failed + b.failed,
  quarantined: a.quarantined + b.quarantined,
  rejected: a.rejected + b.rejected,
  spfAligned: a.spfAligned + b.spfAligned,
  dkimAligned: a.dkimAligned + b.dkimAligned,
});
const ZERO: DayCounts = { messages: 0, passed: 0, failed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0 };

/** 30 days of reports for example.com (days 0–29 ago) and shop.example (every other day). */
async function thirtyDays(orgId: string) {
  const expected = { "example.com": new Map<number, DayCounts>(), "shop.example": new Map<number, DayCounts>() };
  for (let ago = 0; ago < 30; ago++) {
    const a = reportsOfDay("example.com", ago, 10);
    for (const r of a.reports) await ingest(orgId, r);
    expected["example.com"].set(TODAY - ago, a.counts);
    if (ago % 2 === 0) {
      const b = reportsOfDay("shop.example", ago, 3);
      for (const r of b.reports) await ingest(orgId, r);
      expected["shop.example"].set(TODAY - ago, b.counts);
    }
  }
  return expected;
}

async function domainRollups(domainId: string) {
  const d = t.deps.store.t.dailyDomainStats;
  return t.deps.store.db
    .select({ day: d.day, messages: d.messages, passed: d.passed, quarantined: d.quarantined, rejected: d.rejected, spfAligned: d.spfAligned, dkimAligned: d.dkimAligned })
    .from(d)
    .where(eq(d.domainId, domainId))
    .orderBy(asc(d.day));
}

/** The domain's per-address roll-up (daily_sender_stats) summed per day and address, over its policy domains. */
async function sourceRollups(domainId: string) {
  const rows = await t.deps.store.rows<Record<string, unknown>>(sql`
    SELECT s.org_id AS "orgId", s.domain_id AS "domainId", s.day AS "day", s.source_ip AS "sourceIp", MAX(s.country) AS "country", SUM(s.messages) AS "messages",
      SUM(s.passed) AS "passed", SUM(s.quarantined) AS "quarantined", SUM(s.rejected) AS "rejected", SUM(s.spf_aligned) AS "spfAligned", SUM(s.dkim_aligned) AS "dkimAligned"
    FROM daily_sender_stats s WHERE s.domain_id = ${domainId}
    GROUP BY s.org_id, s.domain_id, s.day, s.source_ip ORDER BY s.day, s.source_ip`);
  return rows.map((r) => ({
    orgId: String(r.orgId), domainId: String(r.domainId), day: Number(r.day), sourceIp: String(r.sourceIp), country: (r.country as string | null) ?? null, messages: Number(r.messages),
    passed: Number(r.passed), quarantined: Number(r.quarantined), rejected: Number(r.rejected), spfAligned: Number(r.spfAligned), dkimAligned: Number(r.dkimAligned),
  }));
}

/** The migration's backfill rule, run over the raw records: what the roll-ups must equal. */
async function rawRule(domainId: string) {
  const rows = await t.deps.store.rows<Record<string, unknown>>(sql`
    SELECT a.date_begin / 86400 AS day, r.source_ip AS source_ip, MAX(r.country) AS country, SUM(r.message_count) AS messages,
      SUM(CASE WHEN r.dmarc_pass THEN r.message_count ELSE 0 END) AS passed,
      SUM(CASE WHEN r.disposition = 'quarantine' THEN r.message_count ELSE 0 END) AS quarantined,
      SUM(CASE WHEN r.disposition = 'reject' THEN r.message_count ELSE 0 END) AS rejected,
      SUM(CASE WHEN r.spf_aligned = 'pass' THEN r.message_count ELSE 0 END) AS spf_aligned,
      SUM(CASE WHEN r.dkim_aligned = 'pass' THEN r.message_count ELSE 0 END) AS dkim_aligned
    FROM aggregate_records r JOIN aggregate_reports a ON a.seq = r.report_seq
    WHERE a.domain_id = ${domainId}
    GROUP BY a.date_begin / 86400, r.source_ip ORDER BY 1, 2`);
  return rows.map((r) => ({
    day: Number(r.day), sourceIp: String(r.source_ip), country: (r.country as string | null) ?? null, messages: Number(r.messages), passed: Number(r.passed), quarantined: Number(r.quarantined),
    rejected: Number(r.rejected), spfAligned: Number(r.spf_aligned), dkimAligned: Number(r.dkim_aligned),
  }));
}

describe("daily roll-ups at ingest", () => {
  test("every field of every day adds up to the reports ingested, per domain and per source, and a duplicate changes nothing", async () => {
    const { orgId } = await member(t);
    const com = await addDomain(orgId, "example.com");
    const shop = await addDomain(orgId, "shop.example");
    const expected = await thirtyDays(orgId);

    const check = async () => {
      for (const [id, name] of [[com, "example.com"], [shop, "shop.example"]] as const) {
        const want = [...expected[name].entries()].sort((a, b) => a[0] - b[0]).map(([day, c]) => ({ day, messages: c.messages, passed: c.passed, quarantined: c.quarantined, rejected: c.rejected, spfAligned: c.spfAligned, dkimAligned: c.dkimAligned }));
        expect((await domainRollups(id)).map((r) => ({ ...r, day: Number(r.day) }))).toEqual(want);
        const sources = (await sourceRollups(id)).map(({ orgId: _o, domainId: _d, ...r }) => ({ ...r, day: Number(r.day) }));
        expect(sources).toEqual(await rawRule(id));
        // the sources of a day add up to the domain's day
        for (const w of want) {
          const ofDay = sources.filter((s) => s.day === w.day);
          expect(ofDay.reduce((n, s) => n + s.messages, 0)).toBe(w.messages);
          expect(ofDay.reduce((n, s) => n + s.passed, 0)).toBe(w.passed);
        }
      }
    };
    await check();
    const google = (await sourceRollups(com)).find((s) => s.sourceIp === "209.85.220.41")!;
    expect(google.country).toBe("US"); // located at ingest

    // the same files again: stored once, roll-ups untouched
    for (let ago = 0; ago < 30; ago += 7) for (const r of reportsOfDay("example.com", ago, 10).reports) await ingest(orgId, r, "duplicate");
    await check();
  });

  test("removing a domain removes its roll-ups and leaves the other domain's", async () => {
    const { orgId, cookie } = await member(t);
    const com = await addDomain(orgId, "example.com");
    const shop = await addDomain(orgId, "shop.example");
    for (const r of reportsOfDay("example.com", 1, 1).reports) await ingest(orgId, r);
    for (const r of reportsOfDay("shop.example", 1, 1).reports) await ingest(orgId, r);
    const res = await t.request("DELETE", `/api/domains/${com}`, { cookie });
    expect(res.status).toBeLessThan(300);
    expect(await domainRollups(com)).toEqual([]);
    expect(await sourceRollups(com)).toEqual([]);
    expect((await domainRollups(shop)).length).toBe(1);
    expect((await sourceRollups(shop)).length).toBeGreaterThan(0);
  });
});


const expectedSeries = (days: number, maps: Map<number, DayCounts>[]) =>
  Array.from({ length: days }, (_, i) => {
    const day = TODAY - (days - 1) + i;
    return { date: isoDay(day), ...maps.reduce((sum, m) => add(sum, m.get(day) ?? ZERO), ZERO) };
  });

describe("GET /api/trends", () => {
  test("the bar of numbers: every field of every day, with and without a domain, and after a duplicate ingest", async () => {
    const { orgId, cookie } = await member(t, "viewer");
    await addDomain(orgId, "example.com");
    await addDomain(orgId, "shop.example");
    const expected = await thirtyDays(orgId);
    const all = [expected["example.com"], expected["shop.example"]];

    const check = async () => {
      const res = await t.json("GET", "/api/trends", { cookie });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ from: isoDay(TODAY - 29), to: isoDay(TODAY), days: expectedSeries(30, all) });
      const shop = await t.json("GET", "/api/trends?days=30&domain=shop.example", { cookie });
      expect(shop.body).toEqual({ from: isoDay(TODAY - 29), to: isoDay(TODAY), days: expectedSeries(30, [expected["shop.example"]]) });
      // odd days have no shop.example reports: zeros, still listed
      expect(shop.body.days[28]).toEqual({ date: isoDay(TODAY - 1), ...ZERO });
      const week = await t.json("GET", "/api/trends?days=7&domain=example.com", { cookie });
      expect(week.body.days).toEqual(expectedSeries(7, [expected["example.com"]]));
      // a longer range: zeros before the first report, 90 entries
      const quarter = await t.json("GET", "/api/trends?days=90", { cookie });
      expect(quarter.body.days).toHaveLength(90);
      expect(quarter.body.days).toEqual(expectedSeries(90, all));
      // a custom range
      const custom = await t.json("GET", `/api/trends?from=${isoDay(TODAY - 12)}&to=${isoDay(TODAY - 10)}&domain=example.com`, { cookie });
      expect(custom.body).toEqual({ from: isoDay(TODAY - 12), to: isoDay(TODAY - 10), days: expectedSeries(13, [expected["example.com"]]).slice(0, 3) });
    };
    await check();
    for (let ago = 0; ago < 30; ago += 3) for (const r of reportsOfDay("example.com", ago, 10).reports) await ingest(orgId, r, "duplicate");
    await check();
  });

  test("top sources of a range, most mail first, from the source roll-ups", async () => {
    const { orgId, cookie } = await member(t);
    await addDomain(orgId, "example.com");
    await addDomain(orgId, "shop.example");
    await thirtyDays(orgId);
    const res = await t.json("GET", "/api/trends/sources?days=7&domain=example.com&limit=2", { cookie });
    expect(res.status).toBe(200);
    // 209.85.220.41 carries 10 × (ago + 1) aligned messages a day: 10 × (1 + … + 7)
    expect(res.body.sources[0]).toEqual({ sourceIp: "209.85.220.41", country: "US", messages: 280, passed: 280, failed: 0, quarantined: 0, rejected: 0, spfAligned: 280, dkimAligned: 280 });
    expect(res.body.sources).toHaveLength(2);
    expect(res.body.sources[1].messages).toBeLessThanOrEqual(280);
  });

  test("bad input gets a clear 400, another organization's domain a 404", async () => {
    const { orgId, cookie } = await member(t);
    await addDomain(orgId, "example.com");
    const other = await member(t);
    await addDomain(other.orgId, "theirs.example");
    for (const q of ["days=0", "days=401", "days=abc", "days=1.5"]) {
      const res = await t.json("GET", `/api/trends?${q}`, { cookie });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe("days must be a whole number from 1 to 400");
    }
    expect((await t.json("GET", "/api/trends?days=400", { cookie })).body.days).toHaveLength(400);
    expect((await t.json("GET", "/api/trends?from=2024-02-30&to=2024-03-01", { cookie })).status).toBe(400);
    expect((await t.json("GET", "/api/trends?from=2024-03-02&to=2024-03-01", { cookie })).body.error.message).toBe("from must be on or before to.");
    expect((await t.json("GET", "/api/trends?from=2024-03-02", { cookie })).status).toBe(400);
    const foreign = await t.json("GET", "/api/trends?domain=theirs.example", { cookie });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).toBe("domain must be one of this organization's domains.");
    expect((await t.json("GET", "/api/trends?domain=Example.COM", { cookie })).status).toBe(200);
    expect((await t.json("GET", "/api/trends")).status).toBe(401);
  });
});

describe("trends are the organization's own", () => {
  test("another organization's reports never count", async () => {
    const home = await member(t);
    await addDomain(home.orgId, "example.com");
    for (const r of reportsOfDay("example.com", 2, 5).reports) await ingest(home.orgId, r);
    const other = await member(t);
    await addDomain(other.orgId, "example.com"); // the same name, another organisation
    const res = await t.json("GET", "/api/trends?days=7&domain=example.com", { cookie: other.cookie });
    expect(res.body.days.every((d: DayCounts) => d.messages === 0)).toBe(true);
    expect((await t.json("GET", "/api/trends/sources?days=7", { cookie: other.cookie })).body.sources).toEqual([]);
    expect((await t.json("GET", "/api/trends?days=7", { cookie: home.cookie })).body.days[4].messages).toBeGreaterThan(0);
  });
});
