/**
 * The weekly digest against real local parts: the SMTP capture server receives it with a PDF
 * that parses, the figures match the seeded roll-ups, it goes out once per week per organisation
 * even when two nodes look at once, on the day and hour of the organisation's settings, only to
 * owners and admins with a verified address; an MSP's digest covers its clients; the `digest`
 * command writes the PDF.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import { runDueDigests, sendDigest } from "../../src/features/digests/schedule";
import { buildDigest, digestWeek, isoWeek } from "../../src/features/digests/service";
import { createMailer, type Mailer } from "../../src/features/mail/mailer";
import { run } from "../../src/main";
import { makeTestApp, TEST_POSTGRES_URL, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";
import { startMailCapture, type CapturedMail, type MailCapture } from "../support/mail-capture";

const PUBLIC = "http://dw.example.test";
/** Monday 11 May 2026, 09:00 UTC: the default schedule (Monday 08:00) is due; the week covered is 4–10 May. */
const MONDAY = new Date("2026-05-11T09:00:00Z");
const DAY = 86_400_000;
const dayNumber = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY);

let capture: MailCapture;
let t: TestApp;
let clock = MONDAY;
let mailer: Mailer;
let dir: string;

beforeAll(async () => {
  capture = await startMailCapture();
  dir = mkdtempSync(join(tmpdir(), "dw-digest-"));
});
afterAll(async () => {
  await capture.stop();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  mailer?.close();
  await t?.close();
});

async function app(options: { dbPath?: string } = {}) {
  clock = MONDAY;
  mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <digest@dw.example.test>", publicUrl: PUBLIC });
  t = await makeTestApp({ config: { publicUrl: PUBLIC }, deps: { mailer, now: () => clock }, dbPath: options.dbPath });
  return t;
}

const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.test`;

async function person(orgId: string, role: "owner" | "admin" | "member" | "viewer", verified: boolean) {
  const store = t.deps.store;
  const email = unique(role);
  const userId = await createUser(store, email, `The ${role}`);
  if (verified) await store.write((tx) => tx.update(store.t.users).set({ emailVerifiedAt: new Date("2026-01-01T00:00:00Z") }).where(eq(store.t.users.id, userId)));
  await addMember(store, orgId, userId, role);
  return { userId, email };
}

async function domain(orgId: string, name: string, status: string) {
  const store = t.deps.store;
  const [row] = await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name, overallStatus: status, dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid" }).returning({ id: store.t.domains.id }));
  return row!.id;
}

async function dayStats(orgId: string, domainId: string, iso: string, messages: number, passed: number, sources: { ip: string; messages: number; passed: number }[] = []) {
  const store = t.deps.store;
  const day = dayNumber(iso);
  await store.write(async (tx) => {
    await tx.insert(store.t.dailyDomainStats).values({ orgId, domainId, day, messages, passed });
    if (sources.length) {
      await tx.insert(store.t.dailySenderStats).values(
        sources.map((s) => ({
          orgId, domainId, day, sourceIp: s.ip, policyDomain: "", messages: s.messages, passed: s.passed,
          firstFailedAt: s.messages > s.passed ? day * 86_400 : null, lastFailedAt: s.messages > s.passed ? day * 86_400 : null, lastBegin: day * 86_400,
        })),
      );
    }
  });
}

async function history(orgId: string, domainId: string, at: string, overallStatus: string) {
  const store = t.deps.store;
  await store.write((tx) =>
    tx.insert(store.t.domainRecordHistory).values({ orgId, domainId, checkedAt: new Date(at), dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus, dmarcRecord: "v=DMARC1; p=none" }),
  );
}

/** An organisation with two domains and a known week: 1,000 messages (900 passed) against 800 (780) the week before. */
async function seededOrg(name = `Digest Org ${crypto.randomUUID().slice(0, 6)}`) {
  const orgId = await createOrg(t.deps.store, name);
  const main = await domain(orgId, "acme.example", "protected");
  const shop = await domain(orgId, "shop.acme.example", "partial");
  // this week (4–10 May): 600 + 400 messages; a source failing 80 on acme.example, one failing 20 on shop
  await dayStats(orgId, main, "2026-05-04", 300, 260, [{ ip: "203.0.113.9", messages: 50, passed: 10 }]);
  await dayStats(orgId, main, "2026-05-10", 300, 280, [{ ip: "203.0.113.9", messages: 40, passed: 0 }]);
  await dayStats(orgId, shop, "2026-05-06", 400, 360, [{ ip: "198.51.100.7", messages: 20, passed: 0 }, { ip: "192.0.2.1", messages: 380, passed: 380 }]);
  // the week before (27 April – 3 May) and one day outside both weeks (11 May, today) that must not count
  await dayStats(orgId, main, "2026-04-27", 500, 490);
  await dayStats(orgId, shop, "2026-05-03", 300, 290);
  await dayStats(orgId, main, "2026-05-11", 9999, 0, [{ ip: "203.0.113.250", messages: 9999, passed: 0 }]);
  // shop.acme.example went from protected to partial on 7 May; a change before the week is not listed
  await history(orgId, shop, "2026-04-01T10:00:00Z", "vulnerable");
  await history(orgId, shop, "2026-04-20T10:00:00Z", "protected");
  await history(orgId, shop, "2026-05-07T09:30:00Z", "partial");
  return { orgId, main, shop };
}

const digestsTo = (email: string) => capture.messages.filter((m) => m.to.includes(email) && m.subject.includes("Weekly DMARC digest"));

async function pdfText(mail: CapturedMail): Promise<string> {
  const pdf = mail.attachments.find((a) => a.mimeType === "application/pdf");
  expect(pdf).toBeDefined();
  const doc = await getDocumentProxy(new Uint8Array(pdf!.content));
  const { text } = await extractText(doc, { mergePages: true });
  return text as string;
}

describe("the digest model", () => {
  test("the week before the day it is built, in whole UTC days; ISO weeks", () => {
    expect(digestWeek(MONDAY)).toEqual({ start: new Date("2026-05-04T00:00:00Z"), end: new Date("2026-05-11T00:00:00Z") });
    expect(isoWeek(MONDAY)).toBe("2026-W20");
    expect(isoWeek(new Date("2026-05-17T23:59:00Z"))).toBe("2026-W20");
    expect(isoWeek(new Date("2027-01-01T00:00:00Z"))).toBe("2026-W53");
    expect(isoWeek(new Date("2024-12-30T00:00:00Z"))).toBe("2025-W01");
  });

  test("figures come from the roll-ups of the week and the week before; status changes of the week; failing sources; open tasks", async () => {
    await app();
    const { orgId } = await seededOrg("Acme Dental");
    const digest = await buildDigest(t.deps, orgId);
    expect(digest.organization.name).toBe("Acme Dental");
    expect(digest.period).toEqual({ start: new Date("2026-05-04T00:00:00Z"), end: new Date("2026-05-11T00:00:00Z") });
    expect(digest.domains).toEqual([
      { name: "acme.example", status: "protected", messages: 600, passed: 540, previousMessages: 500, previousPassed: 490 },
      { name: "shop.acme.example", status: "partial", messages: 400, passed: 360, previousMessages: 300, previousPassed: 290 },
    ]);
    expect(digest.statusChanges).toEqual([{ domain: "shop.acme.example", at: new Date("2026-05-07T09:30:00Z"), before: "protected", after: "partial" }]);
    expect(digest.topFailingSources).toEqual([
      { sourceIp: "203.0.113.9", sourceName: null, domain: "acme.example", failedMessages: 80 },
      { sourceIp: "198.51.100.7", sourceName: null, domain: "shop.acme.example", failedMessages: 20 },
    ]);
    expect(Array.isArray(digest.openTasks)).toBe(true);
    expect(digest.link).toBe(`${PUBLIC}/app/dashboard`);
    expect(digest.clients).toBeUndefined();
  });

  test("an MSP parent's digest covers its clients when its settings say so, with a row per client", async () => {
    await app();
    const parent = await createOrg(t.deps.store, "Managed IT");
    const admin = await person(parent, "owner", true);
    await domain(parent, "managed-it.example", "protected");
    const client = await createOrg(t.deps.store, "Client Bakery", parent);
    const bakery = await domain(client, "bakery.example", "vulnerable");
    await dayStats(client, bakery, "2026-05-05", 200, 100, [{ ip: "203.0.113.77", messages: 100, passed: 0 }]);
    expect((await buildDigest(t.deps, parent)).clients).toBeUndefined();

    const cookie = await signIn(t.deps.store, admin.userId, parent);
    const current = (await t.json("GET", "/api/settings", { cookie })).body;
    expect(current.hasClients).toBe(true);
    const saved = await t.json("PUT", "/api/settings", { cookie, body: { ...current, digestIncludeClients: true } });
    expect(saved.status).toBe(200);
    expect(saved.body.digestIncludeClients).toBe(true);

    const digest = await buildDigest(t.deps, parent);
    expect(digest.clients).toEqual([{ name: "Client Bakery", domains: 1, messages: 200, passed: 100, previousMessages: 0, previousPassed: 0, openTasks: digest.clients![0]!.openTasks }]);
    expect(digest.domains.map((d) => d.name).sort()).toEqual(["bakery.example (Client Bakery)", "managed-it.example"]);
    expect(digest.topFailingSources).toEqual([{ sourceIp: "203.0.113.77", sourceName: null, domain: "bakery.example (Client Bakery)", failedMessages: 100 }]);

    const sent = await sendDigest({ ...t.deps, mailer }, parent);
    expect(sent.sent).toEqual([admin.email]);
    const mail = await capture.waitFor((m) => m.to.includes(admin.email));
    expect(mail.text).toContain("CLIENT ORGANIZATIONS");
    expect(mail.text).toContain("Client Bakery");
    expect(await pdfText(mail)).toContain("Client organizations");
  });
});

describe("sending the weekly digest", () => {
  test("mail and PDF to verified owners and admins only, with the week's figures", async () => {
    await app();
    const { orgId } = await seededOrg("Acme Dental");
    const owner = await person(orgId, "owner", true);
    const admin = await person(orgId, "admin", true);
    const unverified = await person(orgId, "admin", false);
    const member = await person(orgId, "member", true);

    const done = await runDueDigests({ ...t.deps, mailer }, clock);
    expect(done.find((d) => d.orgId === orgId)?.result.sent.sort()).toEqual([owner.email, admin.email].sort());

    const mail = await capture.waitFor((m) => m.to.includes(owner.email));
    expect(mail.subject).toBe("[Acme Dental] Weekly DMARC digest, 4 May 2026 – 10 May 2026");
    expect(mail.text).toContain("Messages: 1,000 (+25% on the week before: 800)");
    expect(mail.text).toContain("DMARC pass rate: 90.0% (−7.5 pts on the week before: 97.5%)");
    expect(mail.text).toContain("203.0.113.9");
    expect(mail.text).not.toContain("203.0.113.250");
    expect(mail.text).toContain("protected → partial");
    expect(mail.text).toContain(`${PUBLIC}/app/dashboard`);
    expect(mail.html).toContain("acme.example");

    const pdf = await pdfText(mail);
    expect(pdf).toContain("Weekly DMARC digest for Acme Dental");
    expect(pdf).toContain("Messages: 1,000");
    expect(pdf).toContain("shop.acme.example");
    expect(pdf).toContain("203.0.113.9");

    await capture.waitFor((m) => m.to.includes(admin.email));
    expect(digestsTo(unverified.email)).toHaveLength(0);
    expect(digestsTo(member.email)).toHaveLength(0);
  });

  test("once per week per organization, even with two nodes at once; again the next week", async () => {
    await app();
    const { orgId } = await seededOrg();
    const owner = await person(orgId, "owner", true);
    const nodeA = { ...t.deps, mailer };
    const nodeB = { ...t.deps, mailer };
    const [a, b] = await Promise.all([runDueDigests(nodeA, MONDAY), runDueDigests(nodeB, MONDAY)]);
    const sentBy = [a, b].map((results) => results.filter((r) => r.orgId === orgId).length);
    expect(sentBy.sort()).toEqual([0, 1]);
    // later the same day and later the same week: nothing more
    await runDueDigests(nodeA, new Date("2026-05-11T17:00:00Z"));
    await runDueDigests(nodeB, new Date("2026-05-11T23:59:00Z"));
    await capture.waitFor((m) => m.to.includes(owner.email));
    expect(digestsTo(owner.email)).toHaveLength(1);
    // the next Monday: the next week's digest
    const next = await runDueDigests(nodeA, new Date("2026-05-18T08:00:00Z"));
    expect(next.find((r) => r.orgId === orgId)?.result.sent).toEqual([owner.email]);
    await capture.waitFor((m) => m.to.includes(owner.email) && m.subject.includes("11 May 2026 – 17 May 2026"));
    expect(digestsTo(owner.email)).toHaveLength(2);
  });

  test("on the organization's day and hour (UTC); switched off, never", async () => {
    await app();
    const { orgId } = await seededOrg();
    const owner = await person(orgId, "owner", true);
    const cookie = await signIn(t.deps.store, owner.userId, orgId);
    const current = (await t.json("GET", "/api/settings", { cookie })).body;
    expect(current).toMatchObject({ digestEnabled: true, digestDay: 1, digestHour: 8, digestIncludeClients: false, hasClients: false });

    const refused = await t.json("PUT", "/api/settings", { cookie, body: { ...current, digestDay: 7, digestHour: 24 } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("day of the week");

    expect((await t.json("PUT", "/api/settings", { cookie, body: { ...current, digestDay: 3, digestHour: 14 } })).status).toBe(200);
    // a client that sends only SPEC's fields keeps the schedule
    const { digestEnabled: _e, digestDay: _d, digestHour: _h, digestIncludeClients: _i, hasClients: _c, canEdit: _x, updatedAt: _u, ...specOnly } = current;
    expect((await t.json("PUT", "/api/settings", { cookie, body: specOnly })).body).toMatchObject({ digestDay: 3, digestHour: 14 });

    const deps = { ...t.deps, mailer };
    const mine = (results: { orgId: string }[]) => results.filter((r) => r.orgId === orgId).length;
    expect(mine(await runDueDigests(deps, new Date("2026-05-11T09:00:00Z")))).toBe(0); // Monday
    expect(mine(await runDueDigests(deps, new Date("2026-05-13T13:59:00Z")))).toBe(0); // Wednesday, before the hour
    expect(mine(await runDueDigests(deps, new Date("2026-05-13T14:00:00Z")))).toBe(1);

    expect((await t.json("PUT", "/api/settings", { cookie, body: { ...current, digestEnabled: false, digestDay: 3, digestHour: 14 } })).status).toBe(200);
    expect(mine(await runDueDigests(deps, new Date("2026-05-20T15:00:00Z")))).toBe(0);
  });

  test("members and viewers cannot change the schedule", async () => {
    await app();
    const orgId = await createOrg(t.deps.store);
    const member = await person(orgId, "member", true);
    const cookie = await signIn(t.deps.store, member.userId, orgId);
    const current = (await t.json("GET", "/api/settings", { cookie })).body;
    expect((await t.json("PUT", "/api/settings", { cookie, body: { ...current, digestEnabled: false } })).status).toBe(403);
  });
});

describe("dmarcwarden digest", () => {
  test("--out writes the PDF of the organization's digest; a bad slug or flag is refused", async () => {
    const dbPath = TEST_POSTGRES_URL ? undefined : join(dir, "cli.db");
    await app({ dbPath });
    const { orgId } = await seededOrg("Cli Org");
    const [org] = await t.deps.store.db.select({ slug: t.deps.store.t.organizations.slug }).from(t.deps.store.t.organizations).where(eq(t.deps.store.t.organizations.id, orgId));
    const where = TEST_POSTGRES_URL ? ["--database-url", t.deps.config.databaseUrl] : ["--db", dbPath!];
    const out = join(dir, "digest.pdf");
    const env = {};
    expect(await run(["digest", "--org", org!.slug, "--week-of", "2026-05-11", "--out", out, ...where], { env })).toBe(0);
    expect(existsSync(out)).toBe(true);
    const doc = await getDocumentProxy(new Uint8Array(readFileSync(out)));
    const text = (await extractText(doc, { mergePages: true })).text as string;
    expect(text).toContain("Weekly DMARC digest for Cli Org");
    expect(text).toContain("Messages: 1,000");

    expect(await run(["digest", "--org", "no-such-org", ...where], { env })).toBe(2);
    expect(await run(["digest", "--org", org!.slug, "--out", join(dir, "digest.txt"), ...where], { env })).toBe(2);
    expect(await run(["digest", "--org", org!.slug, "--week-of", "11/05/2026", ...where], { env })).toBe(2);
    expect(await run(["digest", "--org", org!.slug, "--send", ...where], { env })).toBe(2);
  });
});
