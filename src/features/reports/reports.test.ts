import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { createResolver } from "../dns/resolver";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { addMember, createUser, signedInMember, signIn } from "../../../tests/support/fixtures";
import { fixture, gzip, mbox, reportMail, sampleAggregate, tlsReportJson, xmlBytes, zip } from "../../../tests/support/report-fixtures";
import { seedDemo } from "./demo";
import { reverseDnsSettled } from "./reverse-dns";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

async function addDomain(orgId: string, name: string) {
  const { store } = t.deps;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name }));
}

function upload(cookie: string, files: { name: string; bytes: Uint8Array }[]) {
  const form = new FormData();
  for (const f of files) form.append("files", new File([f.bytes as Uint8Array<ArrayBuffer>], f.name));
  return t.json("POST", "/api/reports/upload", { body: form, cookie });
}

const TABLES = ["aggregate_reports", "aggregate_records", "failure_reports", "tls_reports"];
const counts = () => Promise.all(TABLES.map(async (name) => Number((await t.deps.store.rows<{ n: unknown }>(sql.raw(`SELECT count(*) AS n FROM ${name}`)))[0]!.n)));
const lastReportAts = async (orgId?: string) => {
  const { store } = t.deps;
  const query = store.db.select({ lastReportAt: store.t.domains.lastReportAt }).from(store.t.domains);
  return orgId ? query.where(eq(store.t.domains.orgId, orgId)) : query.orderBy(store.t.domains.id);
};

describe("POST /api/reports/upload", () => {
  test("one file in each shape ingests and says what it found", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    await addDomain(orgId, "example.com");
    const res = await upload(cookie, [
      { name: "google.xml.gz", bytes: gzip(xmlBytes(sampleAggregate("example.com", { reportId: "u-1" }))) },
      { name: "outlook.zip", bytes: zip({ "r.xml": xmlBytes(sampleAggregate("mail.example.com", { reportId: "u-2", orgName: "Enterprise Outlook" })) }) },
      { name: "ruf.eml", bytes: fixture("arf-auth-failure.eml") },
      { name: "tls.json", bytes: tlsReportJson("example.com", "tls-u") },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: any) => [r.fileName, r.status, r.kind])).toEqual([
      ["google.xml.gz", "ingested", "aggregate"],
      ["outlook.zip", "ingested", "aggregate"],
      ["ruf.eml", "ingested", "failure"],
      ["tls.json", "ingested", "tls"],
    ]);
    expect(res.body.results[0].reports[0]).toMatchObject({ domain: "example.com", orgName: "google.com", reportId: "u-1", recordCount: 2, messageCount: 10 });
    expect(res.body.results[1].reports[0]).toMatchObject({ domain: "mail.example.com", orgName: "Enterprise Outlook" });
    const [domain] = await lastReportAts(orgId);
    expect(domain!.lastReportAt!.getTime()).toBeGreaterThan(0);
  });

  test("the same report twice is stored once and said to be a duplicate", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "owner");
    await addDomain(orgId, "example.com");
    const bytes = xmlBytes(sampleAggregate("example.com", { reportId: "dup-1" }));
    const first = await upload(cookie, [{ name: "a.xml", bytes }]);
    const before = await counts();
    const second = await upload(cookie, [{ name: "again.xml.gz", bytes: gzip(bytes) }]);
    expect(second.body.results[0]).toMatchObject({ status: "duplicate", kind: "aggregate" });
    expect(second.body.results[0].reports[0].id).toBe(first.body.results[0].reports[0].id);
    expect(await counts()).toEqual(before);
  });

  test.each([
    ["malformed XML", () => fixture("truncated.xml"), /incomplete or malformed/],
    ["a DOCTYPE", () => fixture("doctype-entities.xml"), /DOCTYPE/],
    ["not a report", () => new TextEncoder().encode("hello"), /not a report/],
    ["a mail with one broken report among good ones", () => reportMail([{ fileName: "ok.xml", contentType: "text/xml", data: xmlBytes(sampleAggregate("example.com")) }, { fileName: "bad.xml", contentType: "text/xml", data: fixture("truncated.xml") }]), /malformed/],
    ["a zip with a report for a foreign domain next to a good one", () => zip({ "a.xml": xmlBytes(sampleAggregate("example.com")), "b.xml": xmlBytes(sampleAggregate("other.org")) }), /other\.org, which is not one of this organization's domains/],
  ])("a refused file (%s) says why and leaves the database as it was", async (_, bytes, reason) => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    await addDomain(orgId, "example.com");
    await upload(cookie, [{ name: "seed.xml", bytes: xmlBytes(sampleAggregate("example.com")) }]);
    const before = await counts();
    const lastReport = await lastReportAts();
    const res = await upload(cookie, [{ name: "bad", bytes: bytes() }]);
    expect(res.status).toBe(200);
    expect(res.body.results[0].status).toBe("rejected");
    expect(res.body.results[0].error).toMatch(reason);
    expect(res.body.results[0].reports).toEqual([]);
    expect(await counts()).toEqual(before);
    expect(await lastReportAts()).toEqual(lastReport);
  });

  test("a report for a domain of another organization is refused (tenant routing)", async () => {
    const a = await signedInMember(t.deps.store, "owner");
    const b = await signedInMember(t.deps.store, "owner");
    await addDomain(a.orgId, "a-corp.com");
    await addDomain(b.orgId, "b-corp.com");
    const res = await upload(a.cookie, [{ name: "b.xml", bytes: xmlBytes(sampleAggregate("b-corp.com")) }]);
    expect(res.body.results[0]).toMatchObject({ status: "rejected", error: expect.stringContaining("b-corp.com, which is not one of this organization's domains") });
    expect(await counts()).toEqual([0, 0, 0, 0]);
  });

  test("a viewer may not upload (403); signed out is 401", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "viewer");
    await addDomain(orgId, "example.com");
    expect((await upload(cookie, [{ name: "a.xml", bytes: xmlBytes(sampleAggregate()) }])).status).toBe(403);
    expect((await upload("", [{ name: "a.xml", bytes: xmlBytes(sampleAggregate()) }])).status).toBe(401);
    expect(await counts()).toEqual([0, 0, 0, 0]);
  });

  test("no file is a 400; a file over the size bound is a 413 with the reason", async () => {
    const small = await makeTestApp({ config: { maxReportMb: 1 } });
    try {
      const { orgId, cookie } = await signedInMember(small.deps.store, "member");
      await small.deps.store.write((tx) => tx.insert(small.deps.store.t.domains).values({ orgId, name: "example.com" }));
      expect((await small.json("POST", "/api/reports/upload", { body: new FormData(), cookie })).status).toBe(400);
      const form = new FormData();
      form.append("files", new File([new Uint8Array(1024 * 1024 + 10)], "huge.xml"));
      const res = await small.json("POST", "/api/reports/upload", { body: form, cookie });
      expect(res.status).toBe(413);
      expect(res.body.error.message).toMatch(/the most one report file may be is 1 MB/);
    } finally {
      small.close();
    }
  });

  test("a gzip bomb is refused as too large", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    await addDomain(orgId, "example.com");
    const res = await upload(cookie, [{ name: "bomb.xml.gz", bytes: gzip(new Uint8Array(30 * 1024 * 1024)) }]);
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(/compression bomb/);
  });
});

describe("reading reports back", () => {
  test("list (SPEC §3 shape, newest first, own organization only) and detail with records", async () => {
    const a = await signedInMember(t.deps.store, "member");
    const b = await signedInMember(t.deps.store, "member");
    await addDomain(a.orgId, "example.com");
    await addDomain(b.orgId, "example.com");
    const report = sampleAggregate("example.com", { reportId: "read-1" });
    await upload(a.cookie, [{ name: "1.xml", bytes: xmlBytes(report) }]);
    const list = await t.json("GET", "/api/dmarc-reports", { cookie: a.cookie });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ orgName: "google.com", totalMessages: 10, passRate: 80, domain: "example.com" });
    expect(new Date(list.body[0].processedAt).getTime()).toBeGreaterThan(0);

    const detail = await t.json("GET", `/api/dmarc-reports/${list.body[0].id}`, { cookie: a.cookie });
    expect(detail.status).toBe(200);
    expect(detail.body.records).toHaveLength(2);
    expect(detail.body.records[0]).toMatchObject({ sourceIp: "209.85.220.41", country: "US", count: 8, disposition: "none", dkimAligned: "pass", spfAligned: "pass", dmarcPass: true });
    expect(detail.body.records[0].dkimResults).toEqual([{ domain: "example.com", selector: "s1", result: "pass", humanResult: null }]);
    expect(detail.body.records[1]).toMatchObject({ dmarcPass: false, spfResults: [{ domain: "spoof.example", scope: null, result: "fail", humanResult: null }] });

    // organisation B sees nothing of A's, and cannot open A's report
    expect((await t.json("GET", "/api/dmarc-reports", { cookie: b.cookie })).body).toEqual([]);
    expect((await t.json("GET", `/api/dmarc-reports/${list.body[0].id}`, { cookie: b.cookie })).status).toBe(404);
    // the same report uploaded to B is B's own copy, not a duplicate of A's
    expect((await upload(b.cookie, [{ name: "1.xml", bytes: xmlBytes(report) }])).body.results[0].status).toBe("ingested");
  });

  test("pass rate has one decimal and the list is newest first", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "viewer");
    await addDomain(orgId, "example.com");
    const uploader = await createUser(t.deps.store);
    await addMember(t.deps.store, orgId, uploader, "member");
    const upCookie = await signIn(t.deps.store, uploader, orgId);
    let clock = new Date("2024-02-01T00:00:00Z").getTime();
    t.deps.now = () => new Date((clock += 60_000));
    await upload(upCookie, [{ name: "old.xml", bytes: xmlBytes(sampleAggregate("example.com", { reportId: "old", records: [{ sourceIp: "192.0.2.1", count: 2, dkim: "pass" }, { sourceIp: "192.0.2.2", count: 1, dkim: "fail", spf: "fail" }] })) }]);
    await upload(upCookie, [{ name: "new.xml", bytes: xmlBytes(sampleAggregate("example.com", { reportId: "new" })) }]);
    const list = (await t.json("GET", "/api/dmarc-reports", { cookie })).body;
    expect(list.map((r: any) => [r.reportId, r.passRate])).toEqual([
      ["new", 80],
      ["old", 66.7],
    ]);
  });

  test("signed out → 401", async () => {
    expect((await t.json("GET", "/api/dmarc-reports")).status).toBe(401);
  });

  test("?limit= caps the list (newest first, still SPEC §3's array); 1000 when not given; anything but 1-1000 is a 400", async () => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "viewer");
    await addDomain(orgId, "example.com");
    const { store } = t.deps;
    const [domain] = await store.db.select({ id: store.t.domains.id }).from(store.t.domains);
    const domainId = domain!.id;
    const base = new Date("2024-03-01T00:00:00Z").getTime();
    await store.write(async (tx) => {
      const at = (i: number) => new Date(base + i * 60_000);
      const rows = Array.from({ length: 1005 }, (_, i) => ({ seq: i + 1, orgId, domainId, policyDomain: "example.com", reporterOrg: "google.com", reportId: `r${i}`, dateBegin: at(i), dateEnd: at(i), recordCount: 1, messageCount: 10, passCount: 9, source: "upload", processedAt: at(i) }));
      for (let i = 0; i < rows.length; i += 200) await tx.insert(store.t.aggregateReports).values(rows.slice(i, i + 200));
    });
    const three = await t.json("GET", "/api/dmarc-reports?limit=3", { cookie });
    expect(three.status).toBe(200);
    expect(Array.isArray(three.body)).toBe(true);
    expect(three.body.map((r: any) => r.reportId)).toEqual(["r1004", "r1003", "r1002"]);
    expect((await t.json("GET", "/api/dmarc-reports?limit=1000", { cookie })).body).toHaveLength(1000);
    expect((await t.json("GET", "/api/dmarc-reports", { cookie })).body).toHaveLength(1000);
    for (const bad of ["0", "1001", "-5", "2.5", "abc", ""]) {
      const res = await t.json("GET", `/api/dmarc-reports?limit=${bad}`, { cookie });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("validation_failed");
      expect(res.body.error.fields.limit).toBe("limit must be a whole number from 1 to 1000");
    }
  });
});

describe("reverse DNS enrichment", () => {
  let dns: TestDnsServer;
  afterAll(async () => dns?.close());

  test("PTR, base domain and sending service are filled in after the write", async () => {
    dns = await startDnsServer({ "41.220.85.209.in-addr.arpa": { PTR: ["mail-sor-f41.google.com."] } });
    t.deps.resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 500, retries: 0 });
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    await addDomain(orgId, "example.com");
    const res = await upload(cookie, [{ name: "a.xml", bytes: xmlBytes(sampleAggregate("example.com")) }]);
    await reverseDnsSettled();
    const detail = (await t.json("GET", `/api/dmarc-reports/${res.body.results[0].reports[0].id}`, { cookie })).body;
    expect(detail.records[0]).toMatchObject({ ptr: "mail-sor-f41.google.com", baseDomain: "google.com", service: "Google (Including Gmail and Google Workspace)", serviceType: "Email Provider" });
    expect(detail.records[1]).toMatchObject({ ptr: null, service: null });
  });
});

describe("seed-demo", () => {
  test("creates the demo organization with weeks of reports, idempotently", async () => {
    const first = await seedDemo(t.deps);
    expect(first.password).toMatch(/^\w{16}$/);
    expect(first.ingested).toBeGreaterThan(200);
    const before = await counts();
    const second = await seedDemo(t.deps);
    expect(second).toMatchObject({ password: null, ingested: 0, orgId: first.orgId });
    expect(await counts()).toEqual(before);
    const login = await t.json("POST", "/api/auth/login", { body: { email: first.email, password: first.password } });
    expect(login.status).toBe(200);
  });
});

describe("dmarcwarden ingest (CLI)", () => {
  test("files, folders and mbox; summary; non-zero exit when a file is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dw-ingest-"));
    try {
      const db = join(dir, "dw.db");
      const app = await makeTestApp({ dbPath: db });
      const { orgId } = await signedInMember(app.deps.store, "owner", "Cli Org");
      const { store } = app.deps;
      await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
      const [org] = await store.db.select({ slug: store.t.organizations.slug }).from(store.t.organizations).where(eq(store.t.organizations.id, orgId));
      const slug = org!.slug;
      await app.close();
      mkdirSync(join(dir, "in/nested"), { recursive: true });
      writeFileSync(join(dir, "in/a.xml"), xmlBytes(sampleAggregate("example.com", { reportId: "cli-a" })));
      writeFileSync(join(dir, "in/nested/b.xml.gz"), gzip(xmlBytes(sampleAggregate("example.com", { reportId: "cli-b" }))));
      const mails = [1, 2].map((n) => reportMail([{ fileName: `${n}.xml.gz`, contentType: "application/gzip", data: gzip(xmlBytes(sampleAggregate("example.com", { reportId: `cli-mbox-${n}` }))) }]));
      writeFileSync(join(dir, "in/reports.mbox"), mbox(mails));
      const run = (paths: string[]) =>
        Bun.spawnSync([process.execPath, join(import.meta.dir, "../../main.ts"), "ingest", "--org", slug, "--db", db, "--dns-server", "127.0.0.1:9", "--dns-timeout", "100", ...paths], { stdout: "pipe", stderr: "pipe" });

      const ok = run([join(dir, "in")]);
      expect(ok.stdout.toString()).toContain("4 file(s) read — 4 ingested, 0 already ingested, 0 refused; 4 report(s).");
      expect(ok.exitCode).toBe(0);

      writeFileSync(join(dir, "bad.xml"), fixture("truncated.xml"));
      const bad = run([join(dir, "in/a.xml"), join(dir, "bad.xml")]);
      expect(bad.stdout.toString()).toContain("2 file(s) read — 0 ingested, 1 already ingested, 1 refused");
      expect(bad.stderr.toString()).toContain("refused");
      expect(bad.exitCode).toBe(1);

      const unknown = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../main.ts"), "ingest", "--org", "nope", "--db", db, join(dir, "in")], { stdout: "pipe", stderr: "pipe" });
      expect(unknown.stderr.toString()).toContain('no organization with slug "nope"');
      expect(unknown.exitCode).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
