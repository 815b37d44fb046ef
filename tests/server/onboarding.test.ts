/**
 * The getting-started checklist (GET /api/onboarding, POST /api/onboarding/dismiss) and the
 * report path of a domain (GET /api/report-path), against real rows: domains with a DNS check
 * history, reports through the real ingestion path, the SMTP receiver on or off.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { eq } from "drizzle-orm";
import { domainRecordHistory, domains, oauthMailboxes, organizations } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";

const DAY = 86_400_000;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function setup(receiver: boolean): Promise<{ t: TestApp; owner: SignedIn; token: string }> {
  t = await makeTestApp({ config: receiver ? { smtpPort: 2525, smtpDomain: "reports.dw.test" } : {}, deps: { now: () => NOW, resolver: { reverse: async () => [] } as never } });
  const owner = await signedInMember(t.deps.store, "owner", "Acme Dental");
  const [org] = await t.deps.store.db.select({ token: organizations.reportToken }).from(organizations).where(eq(organizations.id, owner.orgId));
  return { t, owner, token: org!.token };
}

/** A domain as a DNS check left it: its row and one history row with the DMARC record found. */
async function checkedDomain(app: TestApp, orgId: string, name: string, policy: string, record: string | null) {
  const db = app.deps.store.db;
  const [row] = await db
    .insert(domains)
    .values({ orgId, name, dmarcPolicy: policy, spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial", createdAt: ago(3 * DAY), lastCheckedAt: ago(DAY) })
    .returning({ id: domains.id });
  await db.insert(domainRecordHistory).values({ orgId, domainId: row!.id, checkedAt: ago(DAY), dmarcRecord: record, spfRecord: "v=spf1 -all", dkimRecord: null, dmarcPolicy: policy, spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial" });
  return row!.id;
}

async function setPolicy(app: TestApp, domainId: string, orgId: string, policy: string, record: string) {
  await app.deps.store.db.update(domains).set({ dmarcPolicy: policy }).where(eq(domains.id, domainId));
  await app.deps.store.db.insert(domainRecordHistory).values({ orgId, domainId, checkedAt: ago(1000), dmarcRecord: record, spfRecord: "v=spf1 -all", dkimRecord: null, dmarcPolicy: policy, spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected" });
}

const done = (body: any) => Object.fromEntries(body.steps.map((s: any) => [s.key, s.done]));

describe("GET /api/onboarding", () => {
  test("a new organization: nothing is done, and without the receiver reports need a mailbox or an upload", async () => {
    const { t, owner } = await setup(false);
    const res = await t.json("GET", "/api/onboarding", { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.body.steps.map((s: any) => s.title)).toEqual(["Add a domain", "Publish DMARC with your report address", "Receive the first report", "Fix the sources that fail DMARC", "Move to quarantine, then reject"]);
    expect(done(res.body)).toEqual({ domain: false, dmarc: false, report: false, sources: false, enforce: false });
    expect(res.body).toMatchObject({ complete: false, dismissed: false, mode: "choice", paths: [] });
  });

  test("each step is checked from the domains, their last DNS check and the reports; dismissible once all are done", async () => {
    const { t, owner, token } = await setup(true);
    const address = `${token}@reports.dw.test`;
    const id = await checkedDomain(t, owner.orgId, "acme.example", "none", "v=DMARC1; p=none; rua=mailto:dmarc@acme.example");
    let res = await t.json("GET", "/api/onboarding", { cookie: owner.cookie });
    expect(done(res.body)).toEqual({ domain: true, dmarc: false, report: false, sources: false, enforce: false });
    // the record sends reports to the domain's own mailbox, which this server never sees: the step says what to publish
    expect(res.body.steps[1].detail).toContain(`rua=mailto:${address}`);
    expect(res.body.paths[0]).toMatchObject({ domain: "acme.example", mode: "receiver", routes: [{ kind: "receiver", rua: `mailto:${address}`, external: { name: "acme.example._report._dmarc.reports.dw.test" } }] });
    expect((await t.json("POST", "/api/onboarding/dismiss", { cookie: owner.cookie })).status).toBe(409);

    await setPolicy(t, id, owner.orgId, "none", `v=DMARC1; p=none; rua=mailto:${address}`);
    res = await t.json("GET", "/api/onboarding", { cookie: owner.cookie });
    expect(done(res.body)).toMatchObject({ dmarc: true, report: false });

    const xml = aggregateXml({ orgName: "google.com", reportId: "r-1", begin: ago(2 * DAY), end: ago(DAY), domain: "acme.example", p: "none", records: [{ sourceIp: "192.0.2.1", count: 90, dkim: "pass", spf: "pass" }, { sourceIp: "198.51.100.7", count: 10, dkim: "fail", spf: "fail" }] });
    expect((await ingestFile(t.deps, { orgId: owner.orgId, fileName: "r1.xml", bytes: strToU8(xml), source: "upload" })).status).toBe("ingested");
    await reverseDnsSettled();
    res = await t.json("GET", "/api/onboarding", { cookie: owner.cookie });
    expect(done(res.body)).toMatchObject({ report: true, sources: false, enforce: false });
    expect(res.body.steps[3].detail).toBe("90% of 100 messages passed DMARC in the last 30 days (the goal is 98%).");

    const xml2 = aggregateXml({ orgName: "yahoo.com", reportId: "r-2", begin: ago(2 * DAY), end: ago(DAY), domain: "acme.example", p: "none", records: [{ sourceIp: "192.0.2.1", count: 900, dkim: "pass", spf: "pass" }] });
    expect((await ingestFile(t.deps, { orgId: owner.orgId, fileName: "r2.xml", bytes: strToU8(xml2), source: "upload" })).status).toBe("ingested");
    await reverseDnsSettled();
    await setPolicy(t, id, owner.orgId, "reject", `v=DMARC1; p=reject; rua=mailto:${address}`);
    res = await t.json("GET", "/api/onboarding", { cookie: owner.cookie });
    expect(done(res.body)).toEqual({ domain: true, dmarc: true, report: true, sources: true, enforce: true });
    expect(res.body).toMatchObject({ complete: true, dismissed: false });

    const dismissed = await t.json("POST", "/api/onboarding/dismiss", { cookie: owner.cookie });
    expect(dismissed.status).toBe(200);
    expect((await t.json("GET", "/api/onboarding", { cookie: owner.cookie })).body).toMatchObject({ complete: true, dismissed: true });
    // a new domain opens the checklist again
    await checkedDomain(t, owner.orgId, "second.example", "missing", null);
    expect((await t.json("GET", "/api/onboarding", { cookie: owner.cookie })).body).toMatchObject({ complete: false, dismissed: false });
  });
});

describe("the report path in tasks and for any domain", () => {
  test("receiver off, a Microsoft 365 mailbox connected through OAuth: its address is the one to publish", async () => {
    const { t, owner } = await setup(false);
    await t.deps.store.db.insert(oauthMailboxes).values({ orgId: owner.orgId, provider: "microsoft", email: "dmarc-reports@acme-mail.example", refreshTokenEncrypted: "sealed" });
    const path = await t.json("GET", "/api/report-path?domain=acme.example", { cookie: owner.cookie });
    expect(path.body).toMatchObject({ mode: "mailbox", routes: [{ kind: "mailbox", rua: "mailto:dmarc-reports@acme-mail.example", external: { name: "acme.example._report._dmarc.acme-mail.example" } }] });
  });

  test("receiver on: the task's record carries the organization's address and the §7.1 record", async () => {
    const { t, owner, token } = await setup(true);
    await checkedDomain(t, owner.orgId, "acme.example", "missing", null);
    const tasks = await t.json("GET", "/api/tasks", { cookie: owner.cookie });
    const task = tasks.body.find((x: any) => x.title === "Publish a DMARC record for acme.example");
    expect(task.description).toContain(`rua=mailto:${token}@reports.dw.test`);
    expect(task.description).toContain("acme.example._report._dmarc.reports.dw.test");
  });

  test("receiver off: the task offers connecting a mailbox or uploading, and the path has both with their rua", async () => {
    const { t, owner } = await setup(false);
    await checkedDomain(t, owner.orgId, "acme.example", "missing", null);
    const tasks = await t.json("GET", "/api/tasks", { cookie: owner.cookie });
    const task = tasks.body.find((x: any) => x.title === "Publish a DMARC record for acme.example");
    expect(task.description).toContain("This server does not receive report mail itself");
    const path = await t.json("GET", "/api/report-path?domain=Other.Example", { cookie: owner.cookie });
    expect(path.status).toBe(200);
    expect(path.body).toEqual({
      domain: "other.example",
      mode: "choice",
      routes: [
        { kind: "mailbox", address: "dmarc@other.example", rua: "mailto:dmarc@other.example", external: null },
        { kind: "upload", address: "dmarc@other.example", rua: "mailto:dmarc@other.example", external: null },
      ],
    });
    expect((await t.json("GET", "/api/report-path?domain=not%20a%20domain", { cookie: owner.cookie })).status).toBe(400);
  });
});
