/**
 * Client reports of an MSP (issue 17, item 4) against real local parts: the contacts API
 * (validated, refused without change, audited, parent-scoped), a client's weekly digest reaching
 * its outside contacts through a real SMTP receiver — one mail per contact, the MSP's branding and
 * never "dmarcwarden", no link into the app, a PDF that parses — once per week per contact even
 * with two nodes at once, relay refusals recorded and retried; and the MSP's portfolio digest with
 * the figures of GET /api/portfolio, attention first, once per week.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { strToU8 } from "fflate";
import { SMTPServer } from "smtp-server";
import { extractText, getDocumentProxy } from "unpdf";
import { auditLog, organizations, users } from "../../src/db/schema";
import { buildPortfolioDigest, runDueDigests } from "../../src/features/digests/schedule";
import { createMailer, type Mailer } from "../../src/features/mail/mailer";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";
import { startMailCapture, type CapturedMail, type MailCapture } from "../support/mail-capture";

const PUBLIC = "http://dw.example.test";
/** Monday 11 May 2026, 09:00 UTC: the default digest schedule (Monday 08:00 UTC) is due. */
const MONDAY = new Date("2026-05-11T09:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(MONDAY.getTime() - ms);

let capture: MailCapture;
let t: TestApp;
let mailer: Mailer;
let seq = 0;

beforeAll(async () => {
  capture = await startMailCapture();
});
afterAll(() => capture.stop());
afterEach(async () => {
  mailer?.close();
  await t?.close();
});

async function app(port = capture.port) {
  mailer = createMailer({ relay: { host: "127.0.0.1", port, secure: false, auth: null }, from: "dmarcwarden <digest@dw.example.test>", publicUrl: PUBLIC });
  t = await makeTestApp({ config: { publicUrl: PUBLIC }, deps: { mailer, now: () => MONDAY, resolver: { reverse: async () => [] } as never } });
  return t;
}

const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.test`;

async function person(orgId: string, role: "owner" | "admin" | "member" | "viewer") {
  const store = t.deps.store;
  const email = unique(role);
  const userId = await createUser(store, email, `The ${role}`);
  await store.write((tx) => tx.update(users).set({ emailVerifiedAt: new Date("2026-01-01T00:00:00Z") }).where(eq(users.id, userId)));
  await addMember(store, orgId, userId, role);
  return { userId, email, cookie: await signIn(store, userId, orgId) };
}

async function addDomain(orgId: string, name: string, overall: string) {
  const store = t.deps.store;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name, overallStatus: overall, dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", createdAt: ago(40 * DAY), lastCheckedAt: ago(HOUR) }));
}

async function ingest(orgId: string, domain: string, records: GeneratedRecord[]) {
  const xml = aggregateXml({ orgName: "google.com", reportId: `r-${++seq}-${crypto.randomUUID()}`, begin: ago(DAY + 2 * HOUR), end: ago(2 * HOUR), domain, p: "none", records });
  const result = await ingestFile(t.deps, { orgId, fileName: `r${seq}.xml`, bytes: strToU8(xml), source: "upload" });
  expect(result.status).toBe("ingested");
  await reverseDnsSettled();
}

const pass = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "pass", spf: "pass" });
const fail = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "fail", spf: "fail", disposition: "none" });

/** An MSP with a white-label brand, an owner, a member, and two clients with domains and mail. */
async function mspWorld(brand = true) {
  const mspId = await createOrg(t.deps.store, `Northwind IT ${crypto.randomUUID().slice(0, 4)}`);
  const owner = await person(mspId, "owner");
  const member = await person(mspId, "member");
  if (brand) {
    const put = await t.json("PUT", "/api/branding", { cookie: owner.cookie, body: { productName: "Northwind Shield", primaryColor: "#0f766e", supportEmail: "help@northwind.example" } });
    expect(put.status).toBe(200);
  }
  const dental = (await t.json("POST", "/api/orgs/clients", { cookie: owner.cookie, body: { name: "Acme Dental" } })).body.id as string;
  const law = (await t.json("POST", "/api/orgs/clients", { cookie: owner.cookie, body: { name: "Baker Law" } })).body.id as string;
  await addDomain(dental, "acmedental.example", "protected");
  await addDomain(law, "bakerlaw.example", "vulnerable");
  await ingest(dental, "acmedental.example", [pass("209.85.220.41", 950), fail("203.0.113.9", 50)]);
  await ingest(law, "bakerlaw.example", [pass("40.92.1.1", 300), fail("192.0.2.55", 100)]);
  const clientOwner = await person(dental, "owner");
  return { mspId, owner, member, dental, law, clientOwner };
}

const reportUrl = (clientId: string) => `/api/portfolio/clients/${clientId}/report`;
const contactMails = (to: string) => capture.messages.filter((m) => m.to.includes(to) && m.subject.includes("Weekly DMARC digest"));

async function pdfText(mail: CapturedMail): Promise<string> {
  const pdf = mail.attachments.find((a) => a.mimeType === "application/pdf");
  expect(pdf).toBeDefined();
  const doc = await getDocumentProxy(new Uint8Array(pdf!.content));
  return (await extractText(doc, { mergePages: true })).text as string;
}

describe("client report contacts", () => {
  test("saved lower-cased without duplicates, validated with what to fix, a refused save changes nothing, audited", async () => {
    await app();
    const w = await mspWorld(false);
    const empty = await t.json("GET", reportUrl(w.dental), { cookie: w.owner.cookie });
    expect(empty.status).toBe(200);
    expect(empty.body).toMatchObject({ contacts: [], enabled: false, lastSentAt: null });

    const saved = await t.json("PUT", reportUrl(w.dental), { cookie: w.owner.cookie, body: { contacts: [" Office@AcmeDental.example ", "office@acmedental.example", "dr.smith@acmedental.example"], enabled: true } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ contacts: ["office@acmedental.example", "dr.smith@acmedental.example"], enabled: true, lastSentAt: null });

    const refusals: [unknown, string][] = [
      [{ contacts: ["office@acmedental.example", "not-an-address"], enabled: true }, '"not-an-address" is not a valid email address'],
      [{ contacts: Array.from({ length: 11 }, (_, i) => `c${i}@acmedental.example`), enabled: true }, "at most 10"],
      [{ contacts: [], enabled: true }, "Add at least one contact address"],
      [{ contacts: "office@acmedental.example", enabled: true }, "list of email addresses"],
      [{ contacts: ["office@acmedental.example"] }, "enabled must be true or false"],
    ];
    for (const [body, message] of refusals) {
      const res = await t.json("PUT", reportUrl(w.dental), { cookie: w.owner.cookie, body });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain(message);
    }
    const after = await t.json("GET", reportUrl(w.dental), { cookie: w.owner.cookie });
    expect(after.body).toMatchObject({ contacts: ["office@acmedental.example", "dr.smith@acmedental.example"], enabled: true });

    // turning it off keeps the list
    const off = await t.json("PUT", reportUrl(w.dental), { cookie: w.owner.cookie, body: { contacts: after.body.contacts, enabled: false } });
    expect(off.body).toMatchObject({ contacts: ["office@acmedental.example", "dr.smith@acmedental.example"], enabled: false });

    const audit = await t.deps.store.db.select().from(auditLog).where(eq(auditLog.orgId, w.mspId));
    const changes = audit.filter((r) => r.action === "client.report_changed");
    expect(changes).toHaveLength(2);
    expect(changes.every((r) => r.target === "Acme Dental")).toBe(true);
    expect(changes.map((r) => JSON.parse(r.data!).enabled).sort()).toEqual([false, true]);
  });

  test("only the managing organization's owners and admins; never the client's own members, another MSP or signed out", async () => {
    await app();
    const w = await mspWorld(false);
    const body = { contacts: ["sneaky@example.test"], enabled: true };
    const admin = await person(w.mspId, "admin");
    expect((await t.json("PUT", reportUrl(w.dental), { cookie: admin.cookie, body })).status).toBe(200);
    expect((await t.json("GET", reportUrl(w.dental), { cookie: w.member.cookie })).status).toBe(403);
    expect((await t.json("PUT", reportUrl(w.dental), { cookie: w.member.cookie, body })).status).toBe(403);
    // the client's own owner
    expect((await t.json("GET", reportUrl(w.dental), { cookie: w.clientOwner.cookie })).status).toBe(403);
    expect((await t.json("PUT", reportUrl(w.dental), { cookie: w.clientOwner.cookie, body: { contacts: ["mine@example.test"], enabled: true } })).status).toBe(403);
    // the MSP's owner switched into a client
    const inClient = await signIn(t.deps.store, w.owner.userId, w.dental);
    expect((await t.json("GET", reportUrl(w.dental), { cookie: inClient })).status).toBe(403);
    // another MSP: no such client
    const other = await createOrg(t.deps.store, "Other MSP");
    const otherOwner = await person(other, "owner");
    const foreign = await t.json("GET", reportUrl(w.dental), { cookie: otherOwner.cookie });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain("sneaky");
    expect((await t.json("PUT", reportUrl(w.dental), { cookie: otherOwner.cookie, body: { contacts: ["theirs@example.test"], enabled: true } })).status).toBe(404);
    // the MSP itself is not its own client
    expect((await t.json("GET", reportUrl(w.mspId), { cookie: w.owner.cookie })).status).toBe(404);
    expect((await t.json("GET", reportUrl(w.dental))).status).toBe(401);
    // nothing changed by the refused ones
    expect((await t.json("GET", reportUrl(w.dental), { cookie: w.owner.cookie })).body.contacts).toEqual(["sneaky@example.test"]);
  });
});

describe("sending the client report", () => {
  test("each contact gets its own mail: the client's digest and PDF with the MSP's brand, no 'dmarcwarden', no link into the app; once per week across two nodes", async () => {
    await app();
    const w = await mspWorld();
    const contacts = [unique("office"), unique("dr.smith")];
    expect((await t.json("PUT", reportUrl(w.dental), { cookie: w.owner.cookie, body: { contacts, enabled: true } })).status).toBe(200);

    const nodeA = { ...t.deps, mailer };
    const nodeB = { ...t.deps, mailer };
    await Promise.all([runDueDigests(nodeA, MONDAY), runDueDigests(nodeB, MONDAY)]);
    for (const to of contacts) await capture.waitFor((m) => m.to.includes(to));
    // the client's own owner still gets the usual digest, with its link
    const members = await capture.waitFor((m) => m.to.includes(w.clientOwner.email) && m.subject.includes("Weekly DMARC digest"));
    expect(members.text).toContain(`${PUBLIC}/app/dashboard`);

    for (const to of contacts) {
      const mails = contactMails(to);
      expect(mails).toHaveLength(1);
      const mail = mails[0]!;
      // its own mail: no other contact's address anywhere in it
      expect(mail.to).toEqual([to]);
      for (const other of contacts.filter((c) => c !== to)) expect(mail.raw).not.toContain(other);
      expect(mail.subject).toBe("[Acme Dental] Weekly DMARC digest, 4 May 2026 – 10 May 2026");
      expect(mail.text).toContain("Northwind Shield");
      expect(mail.text).toContain("acmedental.example");
      expect(mail.text).toContain("Reply to help@northwind.example");
      expect(mail.raw).toMatch(/^Reply-To: help@northwind\.example/m);
      expect(mail.raw).toMatch(/^From: "?Northwind Shield"? <digest@dw\.example\.test>/m);
      expect(mail.raw.toLowerCase()).not.toContain("dmarcwarden");
      // no sign-in links for an outsider
      expect(mail.text).not.toContain(PUBLIC);
      expect(mail.html).not.toContain(PUBLIC);
      expect(mail.html).not.toContain("<a ");
      const pdf = await pdfText(mail);
      expect(pdf).toContain("Weekly DMARC digest for Acme Dental");
      expect(pdf).toContain("Northwind Shield");
      expect(pdf.toLowerCase()).not.toContain("dmarcwarden");
      expect(pdf).not.toContain(PUBLIC);
    }
    // later the same day, the same week, another node: nothing more
    await runDueDigests(nodeB, new Date("2026-05-11T17:00:00Z"));
    await runDueDigests(nodeA, new Date("2026-05-14T10:00:00Z"));
    for (const to of contacts) expect(contactMails(to)).toHaveLength(1);
    const report = await t.json("GET", reportUrl(w.dental), { cookie: w.owner.cookie });
    expect(report.body).toMatchObject({ lastSentAt: MONDAY.toISOString(), lastFailures: [] });
    // Baker Law has no contacts: only its members' digest
    expect(capture.messages.filter((m) => m.subject.startsWith("[Baker Law]") && !m.to.some((to) => to.includes("-owner-") || to.includes("-admin-")))).toHaveLength(0);

    // switched off: the next week nothing goes to the contacts
    await t.json("PUT", reportUrl(w.dental), { cookie: w.owner.cookie, body: { contacts, enabled: false } });
    await runDueDigests(nodeA, new Date("2026-05-18T09:00:00Z"));
    await capture.waitFor((m) => m.to.includes(w.clientOwner.email) && m.subject.includes("11 May 2026 – 17 May 2026"));
    for (const to of contacts) expect(contactMails(to)).toHaveLength(1);
  });

  test("an address the relay refuses is recorded, not thrown; the others are sent once; it is tried again at a later tick", async () => {
    const received: { to: string[] }[] = [];
    let refuse = true;
    const relay = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      disableReverseLookup: true,
      logger: false,
      onRcptTo(address, _session, callback) {
        if (refuse && address.address.startsWith("bounce")) return callback(Object.assign(new Error("550 no such mailbox"), { responseCode: 550 }));
        callback();
      },
      onData(stream, session, callback) {
        stream.on("data", () => {});
        stream.on("end", () => {
          received.push({ to: session.envelope.rcptTo.map((r) => r.address) });
          callback();
        });
      },
    });
    const port = await new Promise<number>((resolve) => relay.listen(0, "127.0.0.1", () => resolve((relay.server.address() as { port: number }).port)));
    try {
      await app(port);
      const w = await mspWorld();
      const good = unique("good");
      const bad = unique("bounce");
      await t.json("PUT", reportUrl(w.dental), { cookie: w.owner.cookie, body: { contacts: [good, bad], enabled: true } });
      await runDueDigests({ ...t.deps, mailer }, MONDAY);
      const to = (address: string) => received.filter((r) => r.to.includes(address)).length;
      expect(to(good)).toBe(1);
      expect(to(bad)).toBe(0);
      const report = (await t.json("GET", reportUrl(w.dental), { cookie: w.owner.cookie })).body;
      expect(report.lastSentAt).toBe(MONDAY.toISOString());
      expect(report.lastFailures.map((f: { to: string }) => f.to)).toEqual([bad]);
      expect(report.lastFailures[0].error).toContain("550");

      // the mailbox exists again: the next tick sends to it, and only to it
      refuse = false;
      await runDueDigests({ ...t.deps, mailer }, new Date("2026-05-11T09:05:00Z"));
      expect(to(bad)).toBe(1);
      expect(to(good)).toBe(1);
      expect((await t.json("GET", reportUrl(w.dental), { cookie: w.owner.cookie })).body.lastFailures).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  });
});

describe("the portfolio digest", () => {
  test("to the MSP's owners and admins: every client with GET /api/portfolio's figures, attention first, branded, once per week", async () => {
    await app();
    const w = await mspWorld();
    const admin = await person(w.mspId, "admin");
    const nodeA = { ...t.deps, mailer };
    const nodeB = { ...t.deps, mailer };
    await Promise.all([runDueDigests(nodeA, MONDAY), runDueDigests(nodeB, MONDAY)]);
    const isPortfolio = (to: string) => (m: CapturedMail) => m.to.includes(to) && m.subject.includes("Weekly portfolio digest");
    const mail = await capture.waitFor(isPortfolio(w.owner.email));
    await capture.waitFor(isPortfolio(admin.email));
    await runDueDigests(nodeB, new Date("2026-05-11T18:00:00Z"));
    expect(capture.messages.filter(isPortfolio(w.owner.email))).toHaveLength(1);
    expect(capture.messages.filter(isPortfolio(w.member.email))).toHaveLength(0);

    const [msp] = await t.deps.store.db.select().from(organizations).where(eq(organizations.id, w.mspId));
    expect(mail.subject).toBe(`[${msp!.name}] Weekly portfolio digest, 4 May 2026 – 11 May 2026`);
    expect(mail.text).toContain("Northwind Shield");
    expect(mail.raw.toLowerCase()).not.toContain("dmarcwarden");
    expect(mail.text).toContain(`${PUBLIC}/app/portfolio`);
    expect(mail.html).toContain("Acme Dental");

    // the same figures as GET /api/portfolio (the same function, at the same time)
    const api = (await t.json("GET", "/api/portfolio", { cookie: w.owner.cookie })).body.clients as any[];
    const digest = await buildPortfolioDigest(t.deps, w.mspId, MONDAY);
    expect(digest!.clients).toEqual(api);
    expect(api.map((c) => c.name).sort()).toEqual(["Acme Dental", "Baker Law"]);
    const law = api.find((c) => c.name === "Baker Law");
    const dental = api.find((c) => c.name === "Acme Dental");
    expect(law).toMatchObject({ worstStatus: "vulnerable", messages7d: 400, passRate7d: 75 });
    expect(dental).toMatchObject({ worstStatus: "protected", messages7d: 1000, passRate7d: 95 });
    // every client is a row of the text part with those figures; the vulnerable one first
    const lines = mail.text.split("\n");
    const row = (name: string) => lines.find((l) => l.startsWith(name))!;
    expect(row("Baker Law")).toMatch(/Baker Law\s+Vulnerable\s+75\.0%\s+400\s+1\s+\d+\s+\d+\s+11 May 2026/);
    expect(row("Acme Dental")).toMatch(/Acme Dental\s+Protected\s+95\.0%\s+1,000\s+1\s+\d+\s+\d+\s+11 May 2026/);
    expect(row("Baker Law")).toContain(`  ${law.openTasks}  `);
    expect(lines.indexOf(row("Baker Law"))).toBeLessThan(lines.indexOf(row("Acme Dental")));

    // the next week: a new one
    await runDueDigests(nodeA, new Date("2026-05-18T09:00:00Z"));
    await capture.waitFor((m) => isPortfolio(w.owner.email)(m) && m.subject.includes("18 May 2026"));
  });

  test("switched off with the organization's digest; an organization without clients gets none", async () => {
    await app();
    const w = await mspWorld(false);
    const lone = await createOrg(t.deps.store, "Lone Org");
    const loneOwner = await person(lone, "owner");
    const settings = (await t.json("GET", "/api/settings", { cookie: w.owner.cookie })).body;
    expect((await t.json("PUT", "/api/settings", { cookie: w.owner.cookie, body: { ...settings, digestEnabled: false } })).status).toBe(200);
    await runDueDigests({ ...t.deps, mailer }, MONDAY);
    // the clients' digests still go out (their own schedule): wait for one, then look
    await capture.waitFor((m) => m.to.includes(w.clientOwner.email));
    await capture.waitFor((m) => m.to.includes(loneOwner.email));
    expect(capture.messages.filter((m) => m.to.includes(w.owner.email))).toHaveLength(0);
    expect(capture.messages.filter((m) => m.to.includes(loneOwner.email) && m.subject.includes("portfolio"))).toHaveLength(0);
  });
});
