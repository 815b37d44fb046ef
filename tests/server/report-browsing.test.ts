/**
 * The report lists, browsable: cursor paging through every report (no cap), the filters domain,
 * reporter, date range, only failures and a search, for aggregate, failure and TLS reports;
 * ?limit/?offset keep working. Awaited inserts: both stores.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domains, memberships, organizations, sessions, users } from "../../src/db/schema";
import { newSession, SESSION_COOKIE } from "../../src/features/auth/sessions";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { tlsReportJson } from "../support/report-fixtures";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ deps: { resolver: { reverse: async () => [] } as never } });
});
afterEach(async () => {
  await reverseDnsSettled();
  await t.close();
});

async function owner() {
  const db = t.deps.store.db;
  const [org] = await db.insert(organizations).values({ name: "Acme", slug: `rb-${crypto.randomUUID().slice(0, 8)}` }).returning({ id: organizations.id });
  const [user] = await db.insert(users).values({ name: "Owner", email: `u-${crypto.randomUUID()}@example.test` }).returning({ id: users.id });
  await db.insert(memberships).values({ orgId: org!.id, userId: user!.id, role: "viewer" });
  const { token, row } = newSession(user!.id, org!.id, new Date());
  await db.insert(sessions).values(row);
  await db.insert(domains).values([{ orgId: org!.id, name: "example.com" }, { orgId: org!.id, name: "shop.example" }]);
  return { orgId: org!.id, cookie: `${SESSION_COOKIE}=${token}` };
}

const day = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000);

/** 30 reports: day i of January 2024, alternating domains and reporters; every third has failing mail. */
async function thirty(orgId: string) {
  for (let i = 0; i < 30; i++) {
    const domain = i % 2 ? "shop.example" : "example.com";
    const records = [{ sourceIp: "209.85.220.41", count: 5, dkim: "pass", spf: "pass" }, ...(i % 3 === 0 ? [{ sourceIp: "198.51.100.7", count: 1, dkim: "fail", spf: "fail" }] : [])];
    const xml = aggregateXml({ orgName: i % 2 ? "Enterprise Outlook" : "google.com", reportId: `rep-${String(i).padStart(2, "0")}${i === 7 ? "_special%" : ""}`, begin: day(i), end: new Date(day(i).getTime() + 86_399_000), domain, records });
    expect((await ingestFile(t.deps, { orgId, fileName: `r${i}.xml`, bytes: strToU8(xml), source: "upload" })).status).toBe("ingested");
  }
}

async function all(path: string, cookie: string): Promise<{ pages: number; items: any[] }> {
  const items: any[] = [];
  let pages = 0;
  let next: string | null = path;
  while (next) {
    const res: { status: number; body: any; headers: Headers } = await t.json("GET", next, { cookie });
    expect(res.status).toBe(200);
    items.push(...res.body);
    pages++;
    const cursor = res.headers.get("x-next-cursor");
    const link: string | null = /^<([^>]+)>; rel="next"$/.exec(res.headers.get("link") ?? "")?.[1] ?? null;
    // unfiltered offset paging links by offset, as before; everything else by cursor
    if (cursor && !link?.includes("offset=")) expect(link).toContain(`cursor=${cursor}`);
    next = link;
  }
  return { pages, items };
}

describe("browsing aggregate reports", () => {
  test("cursor pages walk every report once, newest first, and filters narrow them", async () => {
    const { orgId, cookie } = await owner();
    await thirty(orgId);
    const everything = await all("/api/dmarc-reports?limit=7&q=rep", cookie);
    expect(everything.pages).toBe(5);
    expect(everything.items).toHaveLength(30);
    expect(new Set(everything.items.map((r) => r.id)).size).toBe(30);

    const shop = await all("/api/dmarc-reports?limit=4&domain=shop.example", cookie);
    expect(shop.items.map((r) => r.domain)).toEqual(Array(15).fill("shop.example"));
    const outlook = await all("/api/dmarc-reports?reporter=enterprise%20outlook", cookie);
    expect(outlook.items.map((r) => r.orgName)).toEqual(Array(15).fill("Enterprise Outlook"));
    const failing = await all("/api/dmarc-reports?failures=1&limit=3", cookie);
    expect(failing.items.map((r) => r.reportId).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `rep-${String(i * 3).padStart(2, "0")}`));
    expect(failing.items.every((r) => r.passRate < 100)).toBe(true);
    const week = await all("/api/dmarc-reports?from=2024-01-05&to=2024-01-11&limit=2", cookie);
    expect(week.items.map((r) => r.dateBegin.slice(0, 10)).sort()).toEqual(["2024-01-05", "2024-01-06", "2024-01-07", "2024-01-08", "2024-01-09", "2024-01-10", "2024-01-11"]);
    // the search takes % and _ literally, and finds report ids and reporters in any case
    expect((await all("/api/dmarc-reports?q=_SPECIAL%25", cookie)).items.map((r) => r.reportId)).toEqual(["rep-07_special%"]);
    expect((await all("/api/dmarc-reports?q=OUTLOOK&domain=example.com", cookie)).items).toEqual([]);

    // offset paging as before
    const first = await t.json("GET", "/api/dmarc-reports?limit=10", { cookie });
    expect(first.headers.get("link")).toBe('</api/dmarc-reports?limit=10&offset=10>; rel="next"');
    const second = await t.json("GET", "/api/dmarc-reports?limit=10&offset=10", { cookie });
    const byCursor = await t.json("GET", `/api/dmarc-reports?limit=10&cursor=${first.headers.get("x-next-cursor")}`, { cookie });
    expect(byCursor.body.map((r: any) => r.id)).toEqual(second.body.map((r: any) => r.id));
  });

  test("bad filters are refused with a clear message", async () => {
    const { cookie } = await owner();
    expect((await t.json("GET", "/api/dmarc-reports?cursor=nonsense", { cookie })).body.error.message).toBe("cursor is not one this server gave: start again without it.");
    expect((await t.json("GET", "/api/dmarc-reports?from=2024-13-01", { cookie })).body.error.message).toBe("from and to must be dates written YYYY-MM-DD");
    expect((await t.json("GET", "/api/dmarc-reports?from=2024-02-01&to=2024-01-01", { cookie })).body.error.message).toBe("from must be on or before to.");
    expect((await t.json("GET", "/api/tls-reports?failures=maybe", { cookie })).status).toBe(400);
  });
});

describe("browsing TLS and failure reports", () => {
  test("TLS reports page by cursor and filter by domain, failures and search", async () => {
    const { orgId, cookie } = await owner();
    for (let i = 0; i < 9; i++) {
      const bytes = tlsReportJson(i % 2 ? "shop.example" : "example.com", `tls-${i}`);
      expect((await ingestFile(t.deps, { orgId, fileName: `t${i}.json`, bytes, source: "upload" })).status).toBe("ingested");
    }
    const every = await all("/api/tls-reports?limit=2&q=tls", cookie);
    expect(every.items).toHaveLength(9);
    expect(new Set(every.items.map((r) => r.id)).size).toBe(9);
    expect((await all("/api/tls-reports?limit=2&domain=shop.example", cookie)).items).toHaveLength(4);
    const withFailures = (await all("/api/tls-reports?failures=1", cookie)).items;
    expect(withFailures.every((r) => r.failedSessions > 0)).toBe(true);
    expect((await all("/api/tls-reports?q=tls-3", cookie)).items).toHaveLength(1);
  });

  test("failure reports take the same filters", async () => {
    const { cookie } = await owner();
    const res = await t.json("GET", "/api/failure-reports?domain=example.com&reporter=Yahoo&from=2024-01-01&to=2024-01-31&q=x", { cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });
});
