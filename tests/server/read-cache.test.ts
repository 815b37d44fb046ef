/**
 * The Senders list and trends' top sources are kept between requests (src/features/reports/
 * read-cache.ts) while the organization's roll-up version holds: every change to what they read
 * — a new report, an address named by reverse DNS, a mark, a domain removed, a row written by
 * another server straight into the database — shows on the next request, and a write that is
 * rolled back never shows. On both stores.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { strToU8 } from "fflate";
import { domains } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { readerContext } from "../../src/features/digests/service";
import { keptAnswers } from "../../src/features/metrics/registry";
import { keptRead, raiseRollupVersion, refreshKeptAnswers, SETTLED_CLOCK_MARGIN_MS, settledThrough, unsettledFrom } from "../../src/features/reports/read-cache";
import { purgeExpired } from "../../src/features/reports/retention";
import { reverseDnsSettled, scheduleReverseDns } from "../../src/features/reports/reverse-dns";
import type { ServiceContext } from "../../src/http/access";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let now = new Date(Math.floor(Date.now() / DAY) * DAY + 12 * HOUR);
const ago = (ms: number) => new Date(now.getTime() - ms);

let t: TestApp;
let owner: SignedIn;
let domainId: string;
let seq = 0;

beforeEach(async () => {
  now = new Date(Math.floor(Date.now() / DAY) * DAY + 12 * HOUR);
  t = await makeTestApp({ deps: { now: () => now, resolver: { reverse: async () => [] } as never } });
  owner = await signedInMember(t.deps.store, "owner", "Acme Dental");
  const [made] = await t.deps.store.db.insert(domains).values({ orgId: owner.orgId, name: "shop.example", createdAt: ago(30 * DAY) }).returning({ id: domains.id });
  domainId = made!.id;
});
afterEach(() => t.close());

async function ingest(records: GeneratedRecord[], begin = ago(DAY)) {
  const xml = aggregateXml({ orgName: "google.com", reportId: `r-${++seq}`, begin, end: new Date(begin.getTime() + DAY - 1000), domain: "shop.example", p: "none", records });
  const result = await ingestFile(t.deps, { orgId: owner.orgId, fileName: `r${seq}.xml`, bytes: strToU8(xml), source: "upload" });
  expect(result.status).toBe("ingested");
  await reverseDnsSettled();
}

const fail = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "fail", spf: "fail" });
const senders = async (query = "") => {
  const res = await t.json("GET", `/api/senders${query}`, { cookie: owner.cookie });
  expect(res.status).toBe(200);
  return res.body as { key: string; sender: string; messages: number; mark: string | null }[];
};
const topSources = async () => {
  const res = await t.json("GET", "/api/trends/sources?days=30", { cookie: owner.cookie });
  expect(res.status).toBe(200);
  return (res.body.sources as { sourceIp: string; messages: number }[]).map((s) => [s.sourceIp, s.messages]);
};
const version = async () => Number((await t.deps.store.tuples<[number | string]>(sql`SELECT version FROM rollup_versions WHERE org_id = ${owner.orgId}`))[0]![0]);

describe("answers kept between requests", () => {
  test("a new report shows on the next request, in Senders and in trends' top sources", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    expect((await senders()).map((s) => [s.sender, s.messages])).toEqual([["192.0.2.1", 5]]);
    expect(await topSources()).toEqual([["192.0.2.1", 5]]);
    await ingest([fail("192.0.2.1", 2), fail("198.51.100.9", 9)]);
    expect((await senders()).map((s) => [s.sender, s.messages])).toEqual([["198.51.100.9", 9], ["192.0.2.1", 7]]);
    expect(await topSources()).toEqual([["198.51.100.9", 9], ["192.0.2.1", 7]]);
  });

  test("a report's write raises the version once, whatever the number of its addresses; an organization it does not write keeps its own", async () => {
    const other = await signedInMember(t.deps.store, "owner", "Other Org");
    const othersVersion = async () => Number((await t.deps.store.tuples<[number | string]>(sql`SELECT version FROM rollup_versions WHERE org_id = ${other.orgId}`))[0]![0]);
    const before = await version();
    const untouched = await othersVersion();
    await ingest([fail("192.0.2.1", 5), fail("192.0.2.2", 3), fail("192.0.2.3", 1), fail("198.51.100.4", 2)]);
    expect(await version()).toBe(before + 1);
    expect(await othersVersion()).toBe(untouched);
  });

  test("an answer is kept while the organization's roll-up version holds, and read again when it moves", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    expect((await senders()).map((s) => s.messages)).toEqual([5]);
    const kept = await version();
    // a change whose counter is then put back by hand: the kept answer is served
    await t.deps.store.write(async () => {
      await t.deps.store.rows(sql`UPDATE daily_sender_stats SET messages = 50 WHERE org_id = ${owner.orgId}`);
      await t.deps.store.rows(sql`UPDATE rollup_versions SET version = ${kept} WHERE org_id = ${owner.orgId}`);
    });
    expect((await senders()).map((s) => s.messages)).toEqual([5]);
    // the same change counted (as its writers count every change): read again
    await t.deps.store.write(async () => {
      await t.deps.store.rows(sql`UPDATE daily_sender_stats SET messages = 60 WHERE org_id = ${owner.orgId}`);
      await raiseRollupVersion(t.deps.store, owner.orgId);
    });
    expect(await version()).toBeGreaterThan(kept);
    expect((await senders()).map((s) => s.messages)).toEqual([60]);
  });

  test("rows another server writes raise the version: names, new rows, removed rows", async () => {
    await ingest([fail("192.0.2.1", 5), fail("192.0.2.2", 3)]);
    expect((await senders()).map((s) => s.sender)).toEqual(["192.0.2.1", "192.0.2.2"]);
    // another server's reverse DNS names both addresses as one service (its own resolver; this server's names nothing)
    const naming = { ...t.deps, resolver: { reverse: async () => ["o1.ptr1.sendgrid.net"] } } as unknown as ServiceContext;
    scheduleReverseDns(naming, [{ table: "sources", orgId: owner.orgId, reportRowId: "", ips: ["192.0.2.1", "192.0.2.2"] }]);
    await reverseDnsSettled();
    expect((await t.deps.store.tuples<[string]>(sql`SELECT service FROM source_names WHERE org_id = ${owner.orgId}`)).map((r) => r[0])).toEqual(["Twilio SendGrid", "Twilio SendGrid"]);
    expect((await senders()).map((s) => [s.sender, s.messages])).toEqual([["Twilio SendGrid", 8]]);
    const { dailySenderStats } = t.deps.store.t;
    // a roll-up row removed (rows go only with their domain, whose removal raises the version: the next test)
    await t.deps.store.write(async (tx) => {
      await tx.delete(dailySenderStats).where(sql`${dailySenderStats.orgId} = ${owner.orgId} AND ${dailySenderStats.sourceIp} = '192.0.2.2'`);
      await raiseRollupVersion(t.deps.store, owner.orgId);
    });
    expect((await senders()).map((s) => [s.sender, s.messages])).toEqual([["Twilio SendGrid", 5]]);
    expect(await topSources()).toEqual([["192.0.2.1", 5]]);
  });

  test("an address named again with the name it has leaves the version as it was; a new name moves it", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    // another resolver's answers (the app's names nothing): the address looked up as the Senders list does for unnamed addresses
    const resolver = () => ({ reverse: async () => ["o1.ptr1.sendgrid.net"] });
    let naming = { ...t.deps, resolver: resolver() } as unknown as ServiceContext;
    const lookUp = async () => {
      scheduleReverseDns(naming, [{ table: "sources", orgId: owner.orgId, reportRowId: "", ips: ["192.0.2.1"] }]);
      await reverseDnsSettled();
    };
    const ptr = async () => (await t.deps.store.tuples<[string]>(sql`SELECT ptr FROM source_names WHERE org_id = ${owner.orgId} AND source_ip = '192.0.2.1'`)).map((r) => r[0]);
    const unnamed = await version();
    await lookUp();
    expect(await ptr()).toEqual(["o1.ptr1.sendgrid.net"]);
    const named = await version();
    expect(named).toBeGreaterThan(unnamed);
    const listed = await senders();
    // looked up again, the same name: nothing written, the kept answers stand
    await lookUp();
    expect(await version()).toBe(named);
    expect(await senders()).toEqual(listed);
    // another server wrote another name meanwhile; this server wrote its answer within the hour and leaves the row be
    await t.deps.store.write(async () => {
      await t.deps.store.rows(sql`UPDATE source_names SET ptr = 'mx.old-host.example', base_domain = 'old-host.example', service = NULL, service_type = NULL WHERE org_id = ${owner.orgId}`);
      await raiseRollupVersion(t.deps.store, owner.orgId);
    });
    const renamed = await version();
    expect((await senders()).map((s) => s.sender)).toEqual(["old-host.example"]);
    await lookUp();
    expect(await ptr()).toEqual(["mx.old-host.example"]);
    // the next lookup (a fresh answer, as after the hour's cache) writes its name again, and it shows
    naming = { ...t.deps, resolver: resolver() } as unknown as ServiceContext;
    await lookUp();
    expect(await ptr()).toEqual(["o1.ptr1.sendgrid.net"]);
    expect(await version()).toBeGreaterThan(renamed);
    expect(await senders()).toEqual(listed);
    // and a fresh answer with the name the row has: nothing written
    const again = await version();
    naming = { ...t.deps, resolver: resolver() } as unknown as ServiceContext;
    await lookUp();
    expect(await version()).toBe(again);
  });

  test("a mark shows at once in the Senders list", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    expect((await senders()).map((s) => s.mark)).toEqual([null]);
    const res = await t.json("PUT", `/api/senders/${encodeURIComponent("ip:192.0.2.1")}/mark`, { cookie: owner.cookie, body: { verdict: "not_ours" } });
    expect(res.status).toBe(200);
    expect((await senders()).map((s) => s.mark)).toEqual(["not_ours"]);
  });

  test("a removed domain's senders leave the list (its roll-ups go with it, the version raised once)", async () => {
    await ingest([fail("192.0.2.1", 5), fail("192.0.2.2", 3), fail("198.51.100.9", 1)]);
    expect((await senders()).length).toBe(3);
    const before = await version();
    expect((await t.json("DELETE", `/api/domains/${domainId}`, { cookie: owner.cookie })).status).toBeLessThan(300);
    expect(await senders()).toEqual([]);
    expect(await topSources()).toEqual([]);
    expect(Number((await t.deps.store.tuples<[number | string]>(sql`SELECT count(*) FROM daily_sender_stats WHERE org_id = ${owner.orgId}`))[0]![0])).toBe(0);
    expect(await version()).toBeGreaterThan(before);
  });

  test("a write rolled back never shows, even when the list was read while it was open", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    expect((await senders()).map((s) => s.messages)).toEqual([5]);
    const { dailySenderStats } = t.deps.store.t;
    const refused = t.deps.store.write(async (tx) => {
      await tx.insert(dailySenderStats).values({ orgId: owner.orgId, day: Math.floor(ago(DAY).getTime() / DAY), sourceIp: "203.0.113.7", policyDomain: "shop.example", domainId, messages: 99, passed: 0, lastBegin: 0 });
      await raiseRollupVersion(t.deps.store, owner.orgId);
      // a request while the write is open (on SQLite it shares the connection)
      await senders();
      throw new Error("refused");
    });
    await expect(refused).rejects.toThrow("refused");
    // one committed change of one row: the counter moves as far as the refused write had moved it
    await t.deps.store.write(async () => {
      await t.deps.store.rows(sql`UPDATE daily_sender_stats SET messages = 6 WHERE org_id = ${owner.orgId}`);
      await raiseRollupVersion(t.deps.store, owner.orgId);
    });
    expect((await senders()).map((s) => [s.sender, s.messages])).toEqual([["192.0.2.1", 6]]);
  });

  test("each organization, window and domain has its own answer; a new UTC day reads its own window", async () => {
    await ingest([fail("192.0.2.1", 5)], ago(6 * DAY + HOUR));
    const other = await signedInMember(t.deps.store, "owner", "Other Org");
    expect((await t.json("GET", "/api/senders", { cookie: other.cookie })).body).toEqual([]);
    expect((await senders()).length).toBe(1);
    expect((await senders("?days=7")).length).toBe(1);
    expect(await senders("?domain=other.example")).toEqual([]);
    // two days later the report's day has left the 7-day window
    now = new Date(now.getTime() + 2 * DAY);
    expect(await senders("?days=7")).toEqual([]);
    expect((await senders()).length).toBe(1);
  });

  test("the sender page: a new report, a mark and a retention purge of its sample records show at once", async () => {
    const page = async () => {
      const res = await t.json("GET", `/api/senders/${encodeURIComponent("ip:192.0.2.1")}?days=365`, { cookie: owner.cookie });
      expect(res.status).toBe(200);
      return { messages: res.body.summary?.messages ?? 0, samples: res.body.samples.length as number, mark: res.body.mark as string | null };
    };
    // records kept 60 days: the purge deletes the older report's records, never its roll-ups
    const settings = (await t.json("GET", "/api/settings", { cookie: owner.cookie })).body;
    expect((await t.json("PUT", "/api/settings", { cookie: owner.cookie, body: { ...settings, retentionAggregateDays: 60 } })).status).toBe(200);
    await ingest([fail("192.0.2.1", 5)], ago(120 * DAY));
    expect(await page()).toEqual({ messages: 5, samples: 1, mark: null });
    await ingest([fail("192.0.2.1", 2)]);
    expect(await page()).toEqual({ messages: 7, samples: 2, mark: null });
    expect((await t.json("PUT", `/api/senders/${encodeURIComponent("ip:192.0.2.1")}/mark`, { cookie: owner.cookie, body: { verdict: "approved" } })).status).toBe(200);
    expect(await page()).toEqual({ messages: 7, samples: 2, mark: "approved" });
    expect((await purgeExpired({ ...t.deps, now: () => now })).aggregateRecords).toBe(1);
    expect(await page()).toEqual({ messages: 7, samples: 1, mark: "approved" });
  });

  test("a domain's sources (readiness): a new report and a DKIM result written on its own show at once", async () => {
    const sources = async () => {
      const res = await t.json("GET", `/api/domains/${domainId}/sources`, { cookie: owner.cookie });
      expect(res.status).toBe(200);
      return (res.body.sources as { ip: string; messages: number; dkim: unknown }[]).map((s) => [s.ip, s.messages, JSON.stringify(s.dkim)] as const);
    };
    await ingest([fail("192.0.2.1", 5)]);
    const before = await sources();
    expect(before.map((s) => s.slice(0, 2))).toEqual([["192.0.2.1", 5]]);
    await ingest([fail("198.51.100.9", 9)]);
    expect((await sources()).map((s) => s.slice(0, 2))).toEqual([["198.51.100.9", 9], ["192.0.2.1", 5]]);
    // one more DKIM result of the address, as another server's writer would add it
    const { dailySenderStats } = t.deps.store.t;
    await t.deps.store.write(async (tx) => {
      const where = and(eq(dailySenderStats.orgId, owner.orgId), eq(dailySenderStats.sourceIp, "192.0.2.1"));
      const [row] = await tx.select({ auth: dailySenderStats.auth }).from(dailySenderStats).where(where);
      const auth = { ...(JSON.parse(row!.auth ?? "{}") as Record<string, number>), "d\nsigner.example\ns1\npass": 5 };
      await tx.update(dailySenderStats).set({ auth: JSON.stringify(auth) }).where(where);
      await raiseRollupVersion(t.deps.store, owner.orgId);
    });
    expect(before[0]![2]).not.toContain("signer.example");
    expect((await sources()).find((s) => s[0] === "192.0.2.1")![2]).toContain("signer.example");
  });

  test("the tasks' failing mail: a new report and a mark change the tasks at once, and the dashboard's count with them", async () => {
    const senderTasks = async () => {
      const res = await t.json("GET", "/api/tasks", { cookie: owner.cookie });
      expect(res.status).toBe(200);
      return (res.body as { title: string }[]).map((task) => task.title).filter((title) => /senders for|^Authenticate/.test(title));
    };
    const activeIssues = async () => (await t.json("GET", "/api/dashboard/stats", { cookie: owner.cookie })).body.activeIssues as number;
    expect(await senderTasks()).toEqual([]);
    const before = await activeIssues();
    await ingest([fail("192.0.2.1", 12)]);
    expect(await senderTasks()).toEqual(["Review unrecognised senders for shop.example"]);
    expect(await activeIssues()).toBe(before + 1);
    expect((await t.json("PUT", `/api/senders/${encodeURIComponent("ip:192.0.2.1")}/mark`, { cookie: owner.cookie, body: { verdict: "approved" } })).status).toBe(200);
    expect(await senderTasks()).toEqual(["Authenticate 192.0.2.1 for shop.example"]);
  });

  test("the threat list: served kept while nothing changes; a new report, a name and a mark show at once", async () => {
    const threats = async () => {
      const res = await t.json("GET", "/api/ip-threats", { cookie: owner.cookie });
      expect(res.status).toBe(200);
      return (res.body as { ipAddress: string; attemptCount: number; ptr: string | null; service: string | null }[]).map((r) => [r.ipAddress, r.attemptCount, r.service]);
    };
    await ingest([fail("192.0.2.1", 5)]);
    expect(await threats()).toEqual([["192.0.2.1", 5, null]]);
    const hits = keptAnswers.get({ outcome: "hit" });
    expect(await threats()).toEqual([["192.0.2.1", 5, null]]);
    expect(keptAnswers.get({ outcome: "hit" })).toBe(hits + 1);
    await ingest([fail("192.0.2.1", 2), fail("198.51.100.9", 9)]);
    expect(await threats()).toEqual([["198.51.100.9", 9, null], ["192.0.2.1", 7, null]]);
    // named by another server, as its reverse DNS writer does
    await t.deps.store.write(async (tx) => {
      await tx.insert(t.deps.store.t.sourceNames).values({ orgId: owner.orgId, sourceIp: "198.51.100.9", ptr: "o1.mail.sendgrid.net", baseDomain: "sendgrid.net", service: "Twilio SendGrid", serviceType: "Email Service" });
      await raiseRollupVersion(t.deps.store, owner.orgId);
    });
    expect(await threats()).toEqual([["198.51.100.9", 9, "Twilio SendGrid"], ["192.0.2.1", 7, null]]);
    // a sender the user approved is not a threat
    expect((await t.json("PUT", `/api/senders/${encodeURIComponent("ip:192.0.2.1")}/mark`, { cookie: owner.cookie, body: { verdict: "approved" } })).status).toBe(200);
    expect(await threats()).toEqual([["198.51.100.9", 9, "Twilio SendGrid"]]);
  });

  test("kept answers read recently are computed again once the organization's data has settled, before the next request", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    expect((await senders()).map((s) => s.messages)).toEqual([5]);
    const store = t.deps.store;
    await ingest([fail("192.0.2.1", 2)]);
    // the first run sees the change; more may follow, so it waits for one more run without writes
    expect(await refreshKeptAnswers(store)).toBe(0);
    expect(await refreshKeptAnswers(store)).toBe(1);
    expect(await refreshKeptAnswers(store)).toBe(0);
    // the next request is served the refreshed answer: a change whose counter is put back by hand does not show
    const refreshed = await version();
    await store.write(async () => {
      await store.rows(sql`UPDATE daily_sender_stats SET messages = 50 WHERE org_id = ${owner.orgId}`);
      await store.rows(sql`UPDATE rollup_versions SET version = ${refreshed} WHERE org_id = ${owner.orgId}`);
    });
    expect((await senders()).map((s) => s.messages)).toEqual([7]);
    // an answer nobody read for a quarter of an hour waits for its next request
    await ingest([fail("192.0.2.9", 1)]);
    const later = Date.now() + 16 * 60_000;
    expect(await refreshKeptAnswers(store, later)).toBe(0);
    expect(await refreshKeptAnswers(store, later)).toBe(0);
  });

  test("a request that comes while the refresh computes its answer is served the refresh's computation", async () => {
    const ctx = readerContext(t.deps, owner.orgId);
    let calls = 0;
    let gate: Promise<void> = Promise.resolve();
    const compute = async () => {
      calls++;
      await gate;
      return `answer at ${await version()}`;
    };
    expect(await keptRead(ctx, "refreshed", compute)).toBe(`answer at ${await version()}`);
    await ingest([fail("192.0.2.1", 5)]);
    const run = () => refreshKeptAnswers(t.deps.store, Date.now(), 60_000);
    expect(await run()).toBe(0); // the change is seen; the data must settle for a run
    let release!: () => void;
    gate = new Promise<void>((resolve) => (release = resolve));
    const refreshing = run();
    while (calls < 2) await Bun.sleep(1);
    const shared = keptAnswers.get({ outcome: "shared" });
    let settled = false;
    const asked = keptRead(ctx, "refreshed", async () => "computed again").finally(() => (settled = true));
    while (!settled && keptAnswers.get({ outcome: "shared" }) === shared) await Bun.sleep(1);
    release();
    expect(await asked).toBe(`answer at ${await version()}`);
    expect(await refreshing).toBe(1);
    expect(calls).toBe(2);
  });

  test("a refresh that fails for one answer drops it and refreshes the others", async () => {
    const ctx = readerContext(t.deps, owner.orgId);
    let badCalls = 0;
    await keptRead(ctx, "bad", async () => {
      if (badCalls++) throw new Error("broken");
      return "bad 1";
    });
    await keptRead(ctx, "good", async () => `good at ${await version()}`);
    await ingest([fail("192.0.2.1", 5)]);
    const failures: unknown[] = [];
    const run = () => refreshKeptAnswers(t.deps.store, Date.now(), 60_000, (error) => failures.push(error));
    expect(await run()).toBe(0);
    expect(await run()).toBe(1);
    expect(failures.map((e) => (e as Error).message)).toEqual(["broken"]);
    // the good answer was refreshed (served without computing); the failed one computes on its next request
    expect(await keptRead(ctx, "good", async () => "computed")).toBe(`good at ${await version()}`);
    expect(await keptRead(ctx, "bad", async () => "bad again")).toBe("bad again");
  });

  test("requests that come together for the same answer have it computed once; a failed computation is not shared with later ones", async () => {
    const ctx = readerContext(t.deps, owner.orgId);
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const compute = async () => {
      calls++;
      await gate;
      return { at: await version(), calls };
    };
    const shared = keptAnswers.get({ outcome: "shared" });
    const together = [keptRead(ctx, "together", compute), keptRead(ctx, "together", compute), keptRead(ctx, "together", compute)];
    // another key is computed for itself
    const other = keptRead(ctx, "other", async () => "other");
    await Bun.sleep(5);
    release();
    const answers = await Promise.all(together);
    expect(calls).toBe(1);
    expect(answers[1]).toBe(answers[0]!);
    expect(answers[2]).toBe(answers[0]!);
    expect(keptAnswers.get({ outcome: "shared" }) - shared).toBe(2);
    expect(await other).toBe("other");
    // new data: computed again, once
    await ingest([fail("192.0.2.1", 5)]);
    const again = await Promise.all([keptRead(ctx, "together", compute), keptRead(ctx, "together", compute)]);
    expect(calls).toBe(2);
    expect(again[0]).toEqual({ at: await version(), calls: 2 });
    // a computation that fails fails each request that waited for it; the next request computes anew
    let attempts = 0;
    const broken = async () => {
      attempts++;
      await Bun.sleep(5);
      throw new Error("broken");
    };
    const failed = await Promise.allSettled([keptRead(ctx, "broken", broken), keptRead(ctx, "broken", broken)]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(attempts).toBe(1);
    expect(await keptRead(ctx, "broken", async () => "mended")).toBe("mended");
  });

  test("a computation made inside a write is never shared with a request outside it", async () => {
    const ctx = readerContext(t.deps, owner.orgId);
    const store = t.deps.store;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const computed: string[] = [];
    let begun!: () => void;
    const insideBegun = new Promise<void>((resolve) => (begun = resolve));
    // inside a write (it may read what it has not committed yet): its own answer, waiting at the gate
    const inside = store.write(() =>
      keptRead(ctx, "apart", async () => {
        computed.push("inside");
        begun();
        await gate;
        return "inside";
      }),
    );
    await insideBegun;
    // a request meanwhile, outside it, computes its own (the inside one still under way)
    const shared = keptAnswers.get({ outcome: "shared" });
    const outside = keptRead(ctx, "apart", async () => {
      computed.push("outside");
      return "outside";
    });
    while (!computed.includes("outside") && keptAnswers.get({ outcome: "shared" }) === shared) await Bun.sleep(1);
    expect(keptAnswers.get({ outcome: "shared" })).toBe(shared);
    release();
    expect(await Promise.all([inside, outside])).toEqual(["inside", "outside"]);
    expect(computed).toEqual(["inside", "outside"]);
  });

  test("a request joins a computation only while no write has begun since it started (SQLite: it may have read that write's rows)", async () => {
    const ctx = readerContext(t.deps, owner.orgId);
    const store = t.deps.store;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const compute = async () => {
      calls++;
      await gate;
      return `answer ${calls}`;
    };
    const shared0 = keptAnswers.get({ outcome: "shared" });
    const first = keptRead(ctx, "epoch", compute);
    while (calls === 0) await Bun.sleep(1);
    // a write that leaves the roll-ups as they were (the version holds), rolled back
    await expect(
      store.write(async () => {
        await store.rows(sql`UPDATE domains SET dmarc_policy = 'reject' WHERE id = ${domainId}`);
        throw new Error("undone");
      }),
    ).rejects.toThrow("undone");
    const second = keptRead(ctx, "epoch", compute);
    while (calls === 1 && keptAnswers.get({ outcome: "shared" }) === shared0) await Bun.sleep(1);
    release();
    const answers = await Promise.all([first, second]);
    if (store.dialect === "sqlite") {
      // the first computation may have read the write's rows on the shared connection: the second computes its own
      expect(calls).toBe(2);
      expect(answers).toEqual(["answer 2", "answer 2"]);
    } else {
      // PostgreSQL's reads outside a transaction see only what is committed: the second waits for the first
      expect(calls).toBe(1);
      expect(answers).toEqual(["answer 1", "answer 1"]);
    }
  });

  test("the dashboard's figures and its tasks, asked for at once after new data, sum the failing mail once", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    const count = (outcome: string) => keptAnswers.get({ outcome });
    const [computed, shared, hit] = [count("computed"), count("shared"), count("hit")];
    const [stats, tasks] = await Promise.all([t.json("GET", "/api/dashboard/stats", { cookie: owner.cookie }), t.json("GET", "/api/tasks", { cookie: owner.cookie })]);
    expect([stats.status, tasks.status]).toEqual([200, 200]);
    // the figures read the failing mail now and at the start of the period, the tasks now: the
    // window they both read is computed once (the later request waits for it, or finds it kept)
    expect(count("computed") - computed).toBe(2);
    expect(count("shared") - shared + (count("hit") - hit)).toBe(1);
  });

  test("a kept answer is still served while a write is open, and one computed then is not kept", async () => {
    await ingest([fail("192.0.2.1", 5)]);
    expect((await senders()).map((s) => s.messages)).toEqual([5]);
    const hits = () => keptAnswers.get({ outcome: "hit" });
    const before = hits();
    await t.deps.store.write(async () => {
      // a write of something the Senders list does not read
      await t.deps.store.rows(sql`UPDATE domains SET dmarc_policy = 'none' WHERE id = ${domainId}`);
      expect((await senders()).map((s) => s.messages)).toEqual([5]);
      expect((await senders("?days=7")).map((s) => s.messages)).toEqual([5]);
    });
    // the 30-day list was served kept; the 7-day one was computed inside the write and not kept
    expect(hits() - before).toBe(1);
    expect((await senders("?days=7")).map((s) => s.messages)).toEqual([5]);
    expect(hits() - before).toBe(1);
  });
});

describe("a write that waited for another process's write lock (SQLite)", () => {
  // on its own SQLite file (a second connection holds the lock), on both runs
  test("what it wrote and then rolled back is served to a read made meanwhile, never kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dw-kept-"));
    const file = join(dir, "dw.db");
    const f = await makeTestApp({ dbPath: file, deps: { now: () => now } });
    const other = new Database(file);
    try {
      const store = f.deps.store;
      const member = await signedInMember(store, "owner", "Busy Org");
      const ctx = readerContext(f.deps, member.orgId);
      const gate = () => {
        let open!: () => void;
        return [new Promise<void>((resolve) => (open = resolve)), () => open()] as const;
      };
      const [inBody, entered] = gate();
      const [mayRead, letRead] = gate();
      const [read, readDone] = gate();
      const [mayReturn, letReturn] = gate();
      const [mayThrow, letThrow] = gate();
      const marks = async () => (await store.rows<{ key: string }>(sql`SELECT sender_key AS "key" FROM sender_marks WHERE org_id = ${member.orgId}`)).map((r) => r.key);
      // another process (the CLI's ingest, a second server) holds the write lock
      store.sqlite!.run("PRAGMA busy_timeout = 20");
      other.run("BEGIN IMMEDIATE");
      const write = store.write(async (tx) => {
        await tx.insert(store.t.senderMarks).values({ orgId: member.orgId, senderKey: "ip:192.0.2.1", verdict: "not_ours", markedAt: now });
        entered();
        await mayThrow;
        throw new Error("refused");
      });
      // the write waits for the lock between its attempts; a read begins meanwhile
      await Bun.sleep(5);
      const first = keptRead(ctx, "probe", async () => {
        await mayRead;
        const seen = await marks();
        readDone();
        await mayReturn;
        return seen;
      });
      other.run("COMMIT");
      await inBody;
      // the read sees the open write's row (one connection), which is then rolled back
      letRead();
      await read;
      letThrow();
      await expect(write).rejects.toThrow("refused");
      letReturn();
      expect(await first).toEqual(["ip:192.0.2.1"]);
      // nothing was committed: the next read must not be served the rolled-back row
      expect(await marks()).toEqual([]);
      expect(await keptRead(ctx, "probe", marks)).toEqual([]);
    } finally {
      other.close();
      await f.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the settled days' sums of the window reads", () => {
  const settled = async () => Number((await t.deps.store.tuples<[number | string]>(sql`SELECT version - unsettled_raises FROM rollup_versions WHERE org_id = ${owner.orgId}`))[0]![0]);
  const listed = async () => (await senders()).map((s) => [s.sender, s.messages]);
  const dayOf = (at: Date) => Math.floor(at.getTime() / DAY);

  test("reports of the last two days keep them (the new mail shows at once); an older day's report, a deletion and any other raise read them again", async () => {
    await ingest([fail("192.0.2.1", 5)], ago(10 * DAY));
    await ingest([fail("198.51.100.9", 3)]);
    expect(await listed()).toEqual([["192.0.2.1", 5], ["198.51.100.9", 3]]);
    expect(await topSources()).toEqual([["192.0.2.1", 5], ["198.51.100.9", 3]]);
    // yesterday's and today's reports: the version moves, the settled version holds, the lists change at once
    const before = await settled();
    await ingest([fail("198.51.100.9", 4)]);
    await ingest([fail("203.0.113.7", 6)], ago(HOUR));
    expect(await settled()).toBe(before);
    expect(await listed()).toEqual([["198.51.100.9", 7], ["203.0.113.7", 6], ["192.0.2.1", 5]]);
    expect(await topSources()).toEqual([["198.51.100.9", 7], ["203.0.113.7", 6], ["192.0.2.1", 5]]);
    // the settled days' sums are kept: an older row changed while the settled version is kept by
    // hand (as no writer does) is not read again, the last days are
    await t.deps.store.write(async () => {
      await t.deps.store.rows(sql`UPDATE daily_sender_stats SET messages = 50 WHERE org_id = ${owner.orgId} AND source_ip = '192.0.2.1'`);
      await t.deps.store.rows(sql`UPDATE daily_sender_stats SET messages = 8 WHERE org_id = ${owner.orgId} AND source_ip = '203.0.113.7'`);
      await raiseRollupVersion(t.deps.store, owner.orgId, true);
    });
    expect(await listed()).toEqual([["203.0.113.7", 8], ["198.51.100.9", 7], ["192.0.2.1", 5]]);
    // (trends' top sources choose their addresses by the kept sums and read those shown afresh)
    expect((await topSources()).map(([ip]) => ip)).toEqual(["203.0.113.7", "198.51.100.9", "192.0.2.1"]);
    // a raise that is not told the settled days stayed as they were: read again
    await t.deps.store.write(() => raiseRollupVersion(t.deps.store, owner.orgId));
    expect(await settled()).toBeGreaterThan(before);
    expect(await listed()).toEqual([["192.0.2.1", 50], ["203.0.113.7", 8], ["198.51.100.9", 7]]);
    // a report of five days ago: the settled version moves with it, and it shows at once
    const second = await settled();
    await ingest([fail("192.0.2.1", 1), fail("192.0.2.44", 2)], ago(5 * DAY));
    expect(await settled()).toBeGreaterThan(second);
    expect(await listed()).toEqual([["192.0.2.1", 51], ["203.0.113.7", 8], ["198.51.100.9", 7], ["192.0.2.44", 2]]);
    expect(await topSources()).toEqual([["192.0.2.1", 51], ["203.0.113.7", 8], ["198.51.100.9", 7], ["192.0.2.44", 2]]);
    // the domain removed: its rows go by its trigger, which raises the version alone
    const third = await settled();
    expect((await t.json("DELETE", `/api/domains/${domainId}`, { cookie: owner.cookie })).status).toBeLessThan(300);
    expect(await settled()).toBeGreaterThan(third);
    expect(await listed()).toEqual([]);
    expect(await topSources()).toEqual([]);
  });

  test("names keep them, and show at once; another server's older day written straight into the database reads them again", async () => {
    await ingest([fail("192.0.2.1", 5), fail("192.0.2.2", 3)], ago(8 * DAY));
    expect(await listed()).toEqual([["192.0.2.1", 5], ["192.0.2.2", 3]]);
    const before = await settled();
    const naming = { ...t.deps, resolver: { reverse: async () => ["o1.ptr1.sendgrid.net"] } } as unknown as ServiceContext;
    scheduleReverseDns(naming, [{ table: "sources", orgId: owner.orgId, reportRowId: "", ips: ["192.0.2.1", "192.0.2.2"] }]);
    await reverseDnsSettled();
    expect(await settled()).toBe(before);
    expect(await listed()).toEqual([["Twilio SendGrid", 8]]);
    // another server's writer adds a row of eight days ago (an older day: it raises the settled version too)
    const { dailySenderStats } = t.deps.store.t;
    await t.deps.store.write(async (tx) => {
      await tx.insert(dailySenderStats).values({ orgId: owner.orgId, day: dayOf(ago(8 * DAY)), sourceIp: "198.51.100.20", policyDomain: "shop.example", domainId, messages: 30, passed: 0, lastBegin: 0 });
      await raiseRollupVersion(t.deps.store, owner.orgId);
    });
    expect(await listed()).toEqual([["198.51.100.20", 30], ["Twilio SendGrid", 8]]);
    expect(await topSources()).toEqual([["198.51.100.20", 30], ["192.0.2.1", 5], ["192.0.2.2", 3]]);
  });

  test("a domain's sources: the last days' reports show at once with their DKIM results, the settled days' sums kept; an older day's report reads them again", async () => {
    const sources = async () => {
      const res = await t.json("GET", `/api/domains/${domainId}/sources`, { cookie: owner.cookie });
      expect(res.status).toBe(200);
      return (res.body.sources as { ip: string; messages: number; dkim: { signatures: { domain: string; result: string; messages: number }[] } }[]).map((s) => [s.ip, s.messages, s.dkim.signatures.map((d) => `${d.domain} ${d.result} ${d.messages}`).join(", ")]);
    };
    const signed = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "pass", spf: "fail", dkimAuth: [{ domain: "shop.example", selector: "s1", result: "pass" }] });
    await ingest([signed("192.0.2.1", 5)], ago(9 * DAY));
    expect(await sources()).toEqual([["192.0.2.1", 5, "shop.example pass 5"]]);
    const before = await settled();
    await ingest([signed("192.0.2.1", 2), fail("198.51.100.9", 1)]);
    expect(await settled()).toBe(before);
    expect(await sources()).toEqual([["192.0.2.1", 7, "shop.example pass 7"], ["198.51.100.9", 1, ""]]);
    // kept: an older row changed with the settled version kept by hand is not read again
    await t.deps.store.write(async () => {
      await t.deps.store.rows(sql`UPDATE daily_sender_stats SET messages = 40 WHERE org_id = ${owner.orgId} AND day = ${dayOf(ago(9 * DAY))}`);
      await raiseRollupVersion(t.deps.store, owner.orgId, true);
    });
    expect(await sources()).toEqual([["192.0.2.1", 7, "shop.example pass 7"], ["198.51.100.9", 1, ""]]);
    // a report of four days ago: read again, the hand-made change with it
    await ingest([signed("198.51.100.9", 3)], ago(4 * DAY));
    expect(await sources()).toEqual([["192.0.2.1", 42, "shop.example pass 7"], ["198.51.100.9", 4, "shop.example pass 3"]]);
  });

  test("the tasks' failing mail: the last days' reports and an older day's show at once, the settled days' sums kept between", async () => {
    const review = async () => {
      const res = await t.json("GET", "/api/tasks", { cookie: owner.cookie });
      expect(res.status).toBe(200);
      return (res.body as { title: string; description: string }[]).filter((task) => task.title.startsWith("Review unrecognised senders")).map((task) => task.description.split(" as ")[0]);
    };
    // the tasks' window is the last 7 days: its settled days the first five
    await ingest([fail("192.0.2.1", 12)], ago(5 * DAY));
    expect(await review()).toEqual(["1 unrecognised source sent 12 messages"]);
    const before = await settled();
    await ingest([fail("198.51.100.9", 20)]);
    expect(await settled()).toBe(before);
    expect(await review()).toEqual(["2 unrecognised sources sent 32 messages"]);
    // kept: an older row changed with the settled version kept by hand is not read again
    await t.deps.store.write(async () => {
      await t.deps.store.rows(sql`UPDATE daily_sender_stats SET messages = 100 WHERE org_id = ${owner.orgId} AND source_ip = '192.0.2.1'`);
      await raiseRollupVersion(t.deps.store, owner.orgId, true);
    });
    expect(await review()).toEqual(["2 unrecognised sources sent 32 messages"]);
    await ingest([fail("203.0.113.5", 3)], ago(4 * DAY));
    expect(await review()).toEqual(["3 unrecognised sources sent 123 messages"]);
  });

  test("the sender page: the last days' reports show at once; an address newly named into the sender brings its settled days; an older day's report reads them again", async () => {
    const page = async () => {
      const res = await t.json("GET", `/api/senders/${encodeURIComponent("service:Twilio SendGrid")}?days=30`, { cookie: owner.cookie });
      expect(res.status).toBe(200);
      return [res.body.summary?.messages ?? 0, (res.body.ips as { ip: string }[]).map((i) => i.ip)];
    };
    const name = async (ip: string) => {
      const naming = { ...t.deps, resolver: { reverse: async () => ["o1.ptr1.sendgrid.net"] } } as unknown as ServiceContext;
      scheduleReverseDns(naming, [{ table: "sources", orgId: owner.orgId, reportRowId: "", ips: [ip] }]);
      await reverseDnsSettled();
    };
    await ingest([fail("192.0.2.1", 5), fail("192.0.2.2", 3)], ago(8 * DAY));
    await name("192.0.2.1");
    expect(await page()).toEqual([5, ["192.0.2.1"]]);
    const before = await settled();
    await ingest([fail("192.0.2.1", 2)]);
    expect(await settled()).toBe(before);
    expect(await page()).toEqual([7, ["192.0.2.1"]]);
    // named by reverse DNS (the settled version holds): its settled days count at once
    await name("192.0.2.2");
    expect(await settled()).toBe(before);
    expect(await page()).toEqual([10, ["192.0.2.1", "192.0.2.2"]]);
    await ingest([fail("192.0.2.2", 1)], ago(5 * DAY));
    expect(await settled()).toBeGreaterThan(before);
    expect(await page()).toEqual([11, ["192.0.2.1", "192.0.2.2"]]);
  });

  test("whatever the servers' clocks within the margin, a day a reader keeps as settled is one every writer counts as older", () => {
    const midnight = Math.floor(Date.now() / DAY) * DAY;
    for (const reader of [midnight, midnight + 1, midnight + SETTLED_CLOCK_MARGIN_MS - 1, midnight + SETTLED_CLOCK_MARGIN_MS, midnight + 12 * HOUR, midnight + DAY - 1])
      for (const skew of [-SETTLED_CLOCK_MARGIN_MS, -1, 0, 1, SETTLED_CLOCK_MARGIN_MS, 3 * DAY]) expect(settledThrough(reader)).toBeLessThan(unsettledFrom(reader + skew));
    // and the margin is no wider than it must be: at noon, yesterday and today are not settled, the day before is
    expect(settledThrough(midnight + 12 * HOUR)).toBe(midnight / DAY - 2);
    expect(unsettledFrom(midnight + 12 * HOUR)).toBe(midnight / DAY - 1);
  });
});

describe("the writers of what kept answers read", () => {
  // rows written to daily_sender_stats and source_names raise the version by their writers, not
  // by triggers (migration 0031 / PostgreSQL 0032), and on SQLite sender rows are deleted only by
  // their domain's removal (migration 0032's trigger): a source file that writes them must raise it
  test("every source file that inserts or updates daily_sender_stats or source_names, or deletes sender rows, raises the organization's roll-up version", () => {
    const root = join(import.meta.dir, "../../src");
    const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith(".gen.ts"));
    const writes = /INSERT INTO (daily_sender_stats|source_names)\b|UPDATE (daily_sender_stats|source_names)\b|DELETE FROM daily_sender_stats\b|table: "(daily_sender_stats|source_names)"|\.(insert|update)\((tx|store\.db|db)?\.?t?\.?(dailySenderStats|sourceNames)\)|\.delete\((tx|store\.db|db)?\.?t?\.?dailySenderStats\)/;
    const writers = files.filter((f) => writes.test(readFileSync(join(root, f), "utf8")));
    // the known writers are found (the check would pass vacuously otherwise)
    expect(writers.map((f) => f.replaceAll("\\", "/")).sort()).toEqual(["features/reports/demo.ts", "features/reports/reverse-dns.ts", "features/reports/rollups.ts"]);
    const raising = /raiseRollupVersions?\(|RAISE_ROLLUP_VERSION/;
    expect(writers.filter((f) => !raising.test(readFileSync(join(root, f), "utf8")))).toEqual([]);
  });
});
