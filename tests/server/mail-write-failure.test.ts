/**
 * Report mail is never lost when the database cannot take the write: the SMTP receiver
 * answers with a temporary failure (4xx), so the sender keeps the message and retries, and an
 * IMAP message stays unseen in its folder for the next poll. Real SQLite file, real SMTP
 * receiver on 127.0.0.1, real dovecot (IMAP part skipped only when dovecot is not installed).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { pollMailbox } from "../../src/features/mailin/service";
import { startSmtpReceiver, type SmtpReceiver } from "../../src/features/mailin/smtp-receiver";
import { ingestFile } from "../../src/features/reports/ingest";
import { makeTestApp, sqliteOnly, type TestApp } from "../support/app";
import { dovecotMissing, startDovecot, type Dovecot, type ImapUser } from "../support/dovecot";
import { signedInMember } from "../support/fixtures";
import { aggregateReportMail, sendMail } from "../support/smtp";

const DOMAIN = "reports.dmarcwarden.test";
const MAILBOX: ImapUser = { user: "reports", password: "write-failure-imap" };

let dir = "";
let t: TestApp | null = null;
let receiver: SmtpReceiver | null = null;
let dovecot: Dovecot | null = null;

beforeAll(async () => {
  if (!dovecotMissing) dovecot = await startDovecot([MAILBOX]);
});
afterAll(async () => {
  await dovecot?.stop();
});
afterEach(async () => {
  await receiver?.stop();
  receiver = null;
  t?.close();
  t = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The app on a real database file, with one organisation that owns example.com. */
async function world() {
  dir = mkdtempSync(join(tmpdir(), "dw-write-failure-"));
  t = await makeTestApp({ dbPath: join(dir, "dw.db") });
  t.deps.config.allowPrivateMailboxHosts = true; // the test dovecot listens on loopback
  const member = await signedInMember(t.deps.store, "owner");
  const { store } = t.deps;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name: "example.com" }));
  const [org] = await store.db.select({ token: store.t.organizations.reportToken }).from(store.t.organizations).where(eq(store.t.organizations.id, member.orgId));
  return { t, member, address: `${org!.token}@${DOMAIN}`, dbPath: join(dir, "dw.db") };
}

const storedReportIds = async (app: TestApp, orgId: string) => {
  const reports = app.deps.store.t.aggregateReports;
  return (await app.deps.store.db.select({ reportId: reports.reportId }).from(reports).where(eq(reports.orgId, orgId))).map((r) => r.reportId);
};

describe("SMTP", () => {
  test.skipIf(sqliteOnly("another connection holding a SQLite file's write lock"))("while another connection holds the database's write lock past the retries, the sender gets a 4xx and the report is stored when it retries", async () => {
    const w = await world();
    receiver = await startSmtpReceiver(w.t.deps, ingestFile, { port: 0, host: "127.0.0.1", domain: DOMAIN, maxBytes: 1024 * 1024 });
    const mail = aggregateReportMail({ domain: "example.com", reportId: "kept-by-sender" });

    const other = new Database(w.dbPath);
    other.run("BEGIN IMMEDIATE");
    let first;
    try {
      first = await sendMail(receiver.port, { from: "noreply-dmarc-support@google.com", to: [w.address] }, mail);
    } finally {
      other.run("ROLLBACK");
      other.close();
    }
    expect(first.accepted).toBe(false);
    expect(first.responseCode).toBeGreaterThanOrEqual(400);
    expect(first.responseCode).toBeLessThan(500);
    expect(await storedReportIds(w.t, w.member.orgId)).toEqual([]);

    // the sender's MTA tries again later
    const retry = await sendMail(receiver.port, { from: "noreply-dmarc-support@google.com", to: [w.address] }, mail);
    expect(retry.response).toMatch(/^250/);
    expect(await storedReportIds(w.t, w.member.orgId)).toEqual(["kept-by-sender"]);
  }, 90_000);
});

describe("IMAP", () => {
  test.skipIf(dovecotMissing)("a message whose report cannot be written stays unseen in the folder and is ingested by the next poll", async () => {
    const w = await world();
    const d = dovecot!;
    const saved = await w.t.json("PUT", "/api/settings/mailbox", { cookie: w.member.cookie, body: { host: d.host, port: d.port, tls: false, username: MAILBOX.user, password: MAILBOX.password, folder: "INBOX" } });
    expect(saved.status).toBe(200);
    await d.append(MAILBOX, "INBOX", aggregateReportMail({ domain: "example.com", reportId: "kept-in-inbox" }));

    // every write of a report fails (as on a full disk or an I/O error)
    w.t.deps.store.sqlite!.run("CREATE TRIGGER refuse_report BEFORE INSERT ON aggregate_reports BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END");
    const failed = await pollMailbox(w.t.deps, w.member.orgId, ingestFile);
    expect(failed).toMatchObject({ ok: true, outcome: { processed: 0, invalid: 0, retried: 1 } });
    expect(await d.count(MAILBOX, "INBOX")).toBe(1);
    expect(await d.count(MAILBOX, "Invalid")).toBe(0);
    expect(await d.count(MAILBOX, "Processed")).toBe(0);
    const client = await d.client(MAILBOX);
    try {
      await client.mailboxOpen("INBOX");
      expect(await client.search({ seen: false }, { uid: true })).toHaveLength(1);
    } finally {
      await client.logout();
    }
    const settings = await w.t.json("GET", "/api/settings/mailbox", { cookie: w.member.cookie });
    expect(settings.body.mailbox.lastError).toMatch(/tried again/);

    // the database takes writes again: the next poll stores the report and files the message
    w.t.deps.store.sqlite!.run("DROP TRIGGER refuse_report");
    const next = await pollMailbox(w.t.deps, w.member.orgId, ingestFile);
    expect(next).toMatchObject({ ok: true, outcome: { processed: 1, invalid: 0, retried: 0 } });
    expect(await storedReportIds(w.t, w.member.orgId)).toEqual(["kept-in-inbox"]);
    expect(await d.count(MAILBOX, "INBOX")).toBe(0);
    expect(await d.count(MAILBOX, "Processed")).toBe(1);
  }, 60_000);
});
