/** Uploads: an mbox ingests every message; a refused report stores nothing; report lists are paged. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { sql } from "drizzle-orm";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";
import { fixtureText, gzip, mbox, reportMail, sampleAggregate, tlsReportJson, xmlBytes } from "../../../tests/support/report-fixtures";
import { aggregateXml } from "../../lib/reports/generate";
import { MAX_REPORT_LIST } from "./contract";
import { reverseDnsSettled } from "./reverse-dns";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

async function member() {
  const { orgId, cookie } = await signedInMember(t.deps.store, "member");
  await t.deps.store.write((tx) => tx.insert(t.deps.store.t.domains).values({ orgId, name: "example.com" }));
  return { orgId, cookie };
}

function upload(cookie: string, files: { name: string; bytes: Uint8Array }[]) {
  const form = new FormData();
  for (const f of files) form.append("files", new File([f.bytes as Uint8Array<ArrayBuffer>], f.name));
  return t.json("POST", "/api/reports/upload", { body: form, cookie });
}

const TABLES = ["aggregate_reports", "aggregate_records", "failure_reports", "tls_reports"];
const counts = () => Promise.all(TABLES.map(async (name) => Number((await t.deps.store.rows<{ n: unknown }>(sql.raw(`SELECT count(*) AS n FROM ${name}`)))[0]!.n)));
const long = (n: number) => "x".repeat(n);

describe("uploads", () => {
  test("an mbox with three report messages stores three reports", async () => {
    const { cookie } = await member();
    const mails = [1, 2, 3].map((n) => reportMail([{ fileName: `${n}.xml.gz`, contentType: "application/gzip", data: gzip(xmlBytes(sampleAggregate("example.com", { reportId: `mbox-${n}` }))) }]));
    const res = await upload(cookie, [{ name: "export.mbox", bytes: mbox(mails) }]);
    expect(res.status).toBe(200);
    expect(res.body.results[0].status).toBe("ingested");
    expect(res.body.results[0].reports.map((r: { reportId: string }) => r.reportId)).toEqual(["mbox-1", "mbox-2", "mbox-3"]);
    const list = await t.json("GET", "/api/dmarc-reports", { cookie });
    expect(list.body.map((r: { reportId: string }) => r.reportId).sort()).toEqual(["mbox-1", "mbox-2", "mbox-3"]);
  });

  test("a report of each kind with an over-long field is refused, naming the field, and nothing is stored", async () => {
    const { cookie } = await member();
    const tls = JSON.parse(new TextDecoder().decode(tlsReportJson("example.com", "t-long")));
    tls["organization-name"] = long(20_000);
    const files = [
      { name: "org.xml", bytes: strToU8(aggregateXml(sampleAggregate("example.com", { orgName: long(20_000) }))) },
      { name: "id.xml.gz", bytes: gzip(strToU8(aggregateXml(sampleAggregate("example.com", { reportId: long(60_000) })))) },
      { name: "ruf.eml", bytes: strToU8(fixtureText("arf-auth-failure.eml").replace("Subject: Urgent wire transfer", `Subject: ${long(20_000)}`)) },
      { name: "tls.json", bytes: strToU8(JSON.stringify(tls)) },
    ];
    const res = await upload(cookie, files);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    const each = await Promise.all(files.map((f) => upload(cookie, [f])));
    expect(each.map((r) => r.body.error.message)).toEqual([
      "The aggregate report's <org_name> is 20,000 characters long; the most allowed is 1,024. The report was refused and nothing of it was stored.",
      "The aggregate report's <report_id> is 60,000 characters long; the most allowed is 1,024. The report was refused and nothing of it was stored.",
      "The failure report's original Subject is 20,000 characters long; the most allowed is 16,384. The report was refused and nothing of it was stored.",
      "The SMTP TLS report's \"organization-name\" is 20,000 characters long; the most allowed is 1,024. The report was refused and nothing of it was stored.",
    ]);
    expect(await counts()).toEqual([0, 0, 0, 0]);
  });
});

describe("records per report", () => {
  const withRecords = (reportId: string, n: number) =>
    sampleAggregate("example.com", {
      reportId,
      records: Array.from({ length: n }, (_, i) => ({ sourceIp: `198.${18 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`, count: 1, dkim: "pass" as const, spf: "pass" as const })),
    });

  test("a report over --max-records-per-report is refused whole with 413 naming the bound; one at the bound is stored", async () => {
    await t.close();
    t = await makeTestApp({ config: { maxRecordsPerReport: 40 } });
    const { cookie } = await member();
    const over = await upload(cookie, [{ name: "over.xml.gz", bytes: gzip(xmlBytes(withRecords("over", 41))) }]);
    expect(over.status).toBe(413);
    expect(over.body.error.message).toBe(
      "The report has more than 40 records, the most one report may hold on this server; it was refused and nothing of it was stored. The server's operator can raise the bound (--max-records-per-report).",
    );
    expect(await counts()).toEqual([0, 0, 0, 0]);
    // in a file of several, only the report over the bound is refused
    const mixed = await upload(cookie, [
      { name: "at.xml", bytes: xmlBytes(withRecords("at", 40)) },
      { name: "over-again.xml", bytes: xmlBytes(withRecords("over-again", 60)) },
    ]);
    expect(mixed.status).toBe(200);
    expect(mixed.body.results.map((r: { status: string }) => r.status)).toEqual(["ingested", "rejected"]);
    expect(mixed.body.results[1].error).toContain("more than 40 records");
    expect(await counts()).toEqual([1, 40, 0, 0]);
  });

  test("by default a report of more than 100,000 records is refused", async () => {
    const { cookie } = await member();
    const res = await upload(cookie, [{ name: "huge.xml.gz", bytes: gzip(xmlBytes(withRecords("huge", 100_001))) }]);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toContain("more than 100,000 records");
    expect(await counts()).toEqual([0, 0, 0, 0]);
  }, 120_000);
});

describe("report lists are paged", () => {
  test("limit and offset page through the list, with a Link to the next page until the last", async () => {
    const { orgId, cookie } = await member();
    const { store } = t.deps;
    const [domain] = await store.db.select({ id: store.t.domains.id }).from(store.t.domains);
    const domainId = domain!.id;
    const base = new Date("2024-03-01T00:00:00Z").getTime();
    await store.write(async (tx) => {
      for (let i = 0; i < 5; i++) {
        const at = new Date(base + i * 60_000);
        await tx.insert(store.t.failureReports).values({ orgId, domainId, domain: "example.com", reporterOrg: "r.example", reportId: `f${i}`, arrivalDate: at, source: "upload", processedAt: at });
        await tx
          .insert(store.t.tlsReports)
          .values({ orgId, domainId, policyDomain: "example.com", reporterOrg: "r.example", reportId: `t${i}`, dateBegin: at, dateEnd: at, successfulSessions: 1, failedSessions: 0, policies: "[]", source: "upload", processedAt: at });
      }
    });
    for (const path of ["/api/failure-reports", "/api/tls-reports"]) {
      const seen: string[] = [];
      let next: string | null = `${path}?limit=2`;
      for (let pages = 0; next && pages < 10; pages++) {
        const res: { status: number; body: { id: string }[]; headers: Headers } = await t.json("GET", next, { cookie });
        expect(res.status).toBe(200);
        seen.push(...res.body.map((r) => r.id));
        next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get("link") ?? "")?.[1] ?? null;
      }
      expect(seen).toHaveLength(5);
      expect(new Set(seen).size).toBe(5);
      expect((await t.json("GET", `${path}?limit=2&offset=4`, { cookie })).headers.get("link")).toBeNull();
      const bad = await t.json("GET", `${path}?offset=-1`, { cookie });
      expect(bad.status).toBe(400);
      expect(bad.body.error.fields.offset).toBe("offset must be a whole number from 0 to 10000000");
      expect((await t.json("GET", `${path}?limit=${MAX_REPORT_LIST + 1}`, { cookie })).status).toBe(400);
    }
  });

  test("a full page of reports with long names and ids stays small", async () => {
    const { cookie } = await member();
    const at = (i: number) => String(1_704_067_200 + i * 86_400);
    const xml = (i: number) =>
      aggregateXml(sampleAggregate("example.com", { orgName: long(480), reportId: `${i}-${long(1000)}` })).replace(/<begin>\d+<\/begin>/, `<begin>${at(i)}</begin>`).replace(/<end>\d+<\/end>/, `<end>${at(i + 1)}</end>`);
    for (let batch = 0; batch < 2; batch++) {
      const files = Array.from({ length: 40 }, (_, i) => ({ name: `r${batch}-${i}.xml`, bytes: strToU8(xml(batch * 40 + i)) }));
      const res = await upload(cookie, files);
      expect(res.body.results?.map((r: { status: string }) => r.status) ?? res.body).toEqual(files.map(() => "ingested"));
    }
    const first = await t.json("GET", "/api/dmarc-reports?limit=50", { cookie });
    expect(first.body).toHaveLength(50);
    expect(first.headers.get("link")).toBe('</api/dmarc-reports?limit=50&offset=50>; rel="next"');
    expect(JSON.stringify(first.body).length).toBeLessThan(50 * 3 * 1024);
    const rest = await t.json("GET", "/api/dmarc-reports?limit=50&offset=50", { cookie });
    expect(rest.body).toHaveLength(30);
    expect(rest.headers.get("link")).toBeNull();
  });
});
