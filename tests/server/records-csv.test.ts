/**
 * GET /api/records.csv: the rows and their RFC 4180 quoting, the domain and days filters, and a
 * large export that arrives page by page (the first chunk is read before the rest is produced).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domains, memberships, organizations, sessions, users } from "../../src/db/schema";
import { newSession, SESSION_COOKIE } from "../../src/features/auth/sessions";
import { CSV_COLUMNS, EXPORT_PAGE } from "../../src/features/reports/export";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedAggregate } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";

const DAY = 86_400_000;
const NOW = new Date(Math.floor(Date.now() / DAY) * DAY + DAY / 2);
const dayStart = (ago: number) => new Date(Math.floor(NOW.getTime() / DAY) * DAY - ago * DAY);

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse: async () => [] } as never } });
});
afterEach(async () => {
  await reverseDnsSettled();
  await t.close();
});

async function owner() {
  const db = t.deps.store.db;
  const [org] = await db.insert(organizations).values({ name: "Acme", slug: `csv-${crypto.randomUUID().slice(0, 8)}` }).returning({ id: organizations.id });
  const [user] = await db.insert(users).values({ name: "Owner", email: `u-${crypto.randomUUID()}@example.test` }).returning({ id: users.id });
  await db.insert(memberships).values({ orgId: org!.id, userId: user!.id, role: "viewer" });
  const { token, row } = newSession(user!.id, org!.id, new Date());
  await db.insert(sessions).values(row);
  await db.insert(domains).values([{ orgId: org!.id, name: "example.com" }, { orgId: org!.id, name: "shop.example" }]);
  return { orgId: org!.id, cookie: `${SESSION_COOKIE}=${token}` };
}

async function ingest(orgId: string, report: GeneratedAggregate) {
  const result = await ingestFile(t.deps, { orgId, fileName: "r.xml", bytes: strToU8(aggregateXml(report)), source: "upload" });
  expect(result).toMatchObject({ status: "ingested" });
}

/** RFC 4180 reader for the test: fields, quoted fields with doubled quotes, CRLF lines. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), i++;
    else field += c;
  }
  expect(field).toBe("");
  expect(row).toEqual([]);
  return rows;
}

describe("GET /api/records.csv", () => {
  test("a header row and one row per record, quoted where needed, filtered by days and domain", async () => {
    const { orgId, cookie } = await owner();
    await ingest(orgId, {
      orgName: 'Mail, "Inc"',
      reportId: "csv-1",
      begin: dayStart(2),
      end: new Date(dayStart(2).getTime() + DAY - 1000),
      domain: "example.com",
      records: [
        { sourceIp: "209.85.220.41", count: 8, dkim: "pass", spf: "pass", headerFrom: "example.com", envelopeFrom: "bounce.example.com", dkimAuth: [{ domain: "example.com", selector: "s1", result: "pass" }, { domain: "esp.example", selector: "k2", result: "fail" }], spfAuth: [{ domain: "bounce.example.com", result: "pass" }] },
        { sourceIp: "198.51.100.7", count: 2, dkim: "fail", spf: "fail", disposition: "reject", headerFrom: "example.com" },
      ],
    });
    await ingest(orgId, { orgName: "google.com", reportId: "csv-old", begin: dayStart(40), end: dayStart(39), domain: "example.com", records: [{ sourceIp: "192.0.2.1", count: 1, dkim: "pass", spf: "pass" }] });
    await ingest(orgId, { orgName: "google.com", reportId: "csv-shop", begin: dayStart(1), end: dayStart(0), domain: "shop.example", records: [{ sourceIp: "192.0.2.9", count: 4, dkim: "fail", spf: "pass" }] });

    const res = await t.request("GET", "/api/records.csv?days=30&domain=example.com", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="dmarc-records-example\.com-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await res.text();
    expect(text.split("\r\n")[0]).toBe(CSV_COLUMNS.join(","));
    expect(text).toContain('"Mail, ""Inc"""');
    const rows = parseCsv(text);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    const begin = dayStart(2).toISOString();
    const end = new Date(dayStart(2).getTime() + DAY - 1000).toISOString();
    expect(rows.slice(1)).toEqual([
      [begin, end, 'Mail, "Inc"', "csv-1", "example.com", "209.85.220.41", "US", "", "", "8", "none", "pass", "pass", "example.com", "bounce.example.com", "example.com:s1=pass; esp.example:k2=fail", "bounce.example.com=pass"],
      [begin, end, 'Mail, "Inc"', "csv-1", "example.com", "198.51.100.7", "", "", "", "2", "reject", "fail", "fail", "example.com", "", "", ""],
    ]);

    // every domain, 30 days: the shop.example record too, not the 40-day-old one
    const all = parseCsv(await (await t.request("GET", "/api/records.csv", { cookie })).text());
    expect(all.slice(1).map((r) => r[3])).toEqual(["csv-1", "csv-1", "csv-shop"]);
    const ninety = parseCsv(await (await t.request("GET", "/api/records.csv?days=90", { cookie })).text());
    expect(ninety.slice(1).map((r) => r[3])).toEqual(["csv-old", "csv-1", "csv-1", "csv-shop"]);
    // nothing yet: the header row only
    expect(await (await t.request("GET", "/api/records.csv?days=1&domain=example.com", { cookie })).text()).toBe(`${CSV_COLUMNS.join(",")}\r\n`);
  });

  test("header From and envelope From read back as reported, whether they repeat the policy domain, a subdomain or each other", async () => {
    const { orgId, cookie } = await owner();
    // [address, header From, envelope From]: the row stores "" for a repeat (record-auth.ts), the reader restores it
    const cases: [string, string, string | undefined][] = [
      ["192.0.2.1", "example.com", "example.com"],
      ["192.0.2.2", "example.com", "bounce.example.net"],
      ["192.0.2.3", "news.example.com", "news.example.com"],
      ["192.0.2.4", "news.example.com", "example.com"],
      ["192.0.2.5", "example.com", undefined],
    ];
    await ingest(orgId, {
      orgName: "google.com", reportId: "froms", begin: dayStart(1), end: new Date(dayStart(1).getTime() + DAY - 1000), domain: "example.com",
      records: cases.map(([sourceIp, headerFrom, envelopeFrom], i) => ({
        sourceIp, count: 10 - i, dkim: "pass", spf: "pass", headerFrom, envelopeFrom,
        dkimAuth: [{ domain: headerFrom, selector: "s1", result: "pass" }], spfAuth: [{ domain: envelopeFrom ?? headerFrom, result: "pass" }],
      })),
    });
    const expected = cases.map(([ip, headerFrom, envelopeFrom]) => [ip, headerFrom, envelopeFrom ?? "", `${headerFrom}:s1=pass`, `${envelopeFrom ?? headerFrom}=pass`]);
    // the export
    const rows = parseCsv(await (await t.request("GET", "/api/records.csv?days=7", { cookie })).text());
    const at = (name: string) => CSV_COLUMNS.indexOf(name as never);
    expect(rows.slice(1).map((r) => [r[at("source_ip")], r[at("header_from")], r[at("envelope_from")], r[at("dkim_results")], r[at("spf_results")]])).toEqual(expected);
    // the report's detail
    const list = await t.json("GET", "/api/dmarc-reports", { cookie });
    const detail = await t.json("GET", `/api/dmarc-reports/${list.body[0].id}`, { cookie });
    expect(detail.status).toBe(200);
    expect(
      detail.body.records.map((r: any) => [r.sourceIp, r.headerFrom, r.envelopeFrom ?? "", `${r.dkimResults[0].domain}:${r.dkimResults[0].selector}=${r.dkimResults[0].result}`, `${r.spfResults[0].domain}=${r.spfResults[0].result}`]),
    ).toEqual(expected);
  });

  test("bad input is refused clearly; another organization's domain is not found", async () => {
    const { cookie } = await owner();
    const bad = await t.json("GET", "/api/records.csv?days=0", { cookie });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("days must be a whole number from 1 to 400");
    const foreign = await t.json("GET", "/api/records.csv?domain=not-ours.example", { cookie });
    expect(foreign.status).toBe(404);
    expect((await t.json("GET", "/api/records.csv")).status).toBe(401);
  });

  test("cells a reporter chose that a spreadsheet would run as a formula are neutralised: a leading quote, quoted", async () => {
    // the reporter's DNS names its sending address too
    await t.close();
    t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse: async () => ["-2+3.example."] } as never } });
    const { orgId, cookie } = await owner();
    await ingest(orgId, {
      orgName: '=HYPERLINK("http://x","y")',
      email: "dmarc@reporter.example",
      reportId: "+1",
      begin: dayStart(1),
      end: new Date(dayStart(1).getTime() + DAY - 1000),
      domain: "example.com",
      records: [{ sourceIp: "192.0.2.1", count: 3, dkim: "fail", spf: "fail", headerFrom: "example.com", dkimAuth: [{ domain: "@sum(1)", selector: "@SUM(1)", result: "fail" }], spfAuth: [{ domain: "=cmd.example", result: "fail" }] }],
    });
    await ingest(orgId, { orgName: "\t=1+1", email: "dmarc@tab.example", reportId: "\r=2+2", begin: dayStart(1), end: dayStart(0), domain: "example.com", records: [{ sourceIp: "192.0.2.2", count: 1, dkim: "pass", spf: "pass" }] });
    await reverseDnsSettled();

    const text = await (await t.request("GET", "/api/records.csv?days=7", { cookie })).text();
    expect(text).toContain(`,"'=HYPERLINK(""http://x"",""y"")","'+1",`);
    expect(text).toContain(`,"'-2+3.example",`);
    expect(text).toContain(`,"'@sum(1):@SUM(1)=fail","'=cmd.example=fail"\r\n`);
    const rows = parseCsv(text).slice(1);
    const at = (name: string) => CSV_COLUMNS.indexOf(name as never);
    const cells = (r: string[]) => [r[at("reporter")], r[at("report_id")], r[at("ptr")], r[at("count")], r[at("dkim_results")], r[at("spf_results")]];
    expect(rows.map(cells)).toEqual([
      [`'=HYPERLINK("http://x","y")`, "'+1", "'-2+3.example", "3", "'@sum(1):@SUM(1)=fail", "'=cmd.example=fail"],
      // the report reader trims a leading tab or carriage return; the formula left behind is neutralised all the same
      ["'=1+1", "'=2+2", "'-2+3.example", "1", "", ""],
    ]);
  });

  test("a large export is streamed a page at a time: the first page arrives before the rest is read", async () => {
    const { orgId, cookie } = await owner();
    const records = Array.from({ length: EXPORT_PAGE * 2 + 500 }, (_, i) => ({ sourceIp: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, count: 1, dkim: "pass", spf: "pass" }));
    await ingest(orgId, { orgName: "google.com", reportId: "big", begin: dayStart(1), end: dayStart(0), domain: "example.com", records });
    const res = await t.request("GET", "/api/records.csv?days=7", { cookie });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const lines = (chunk: Uint8Array) => decoder.decode(chunk).split("\r\n").length - 1;
    const chunks: number[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(lines(next.value));
    // the header, then one chunk per page of records: never the whole body at once
    expect(chunks).toEqual([1, EXPORT_PAGE, EXPORT_PAGE, 500]);
  });
});
