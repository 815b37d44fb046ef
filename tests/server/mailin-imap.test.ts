/**
 * IMAP polling against a real dovecot started for these tests: report mail in the folder is
 * ingested for the organisation and moved to Processed; what is not a report goes to Invalid;
 * a broken mailbox is recorded and never stops the others. Skipped only when dovecot is not
 * installed (.ci/run installs it).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { eq } from "drizzle-orm";
import { pollAllMailboxes, pollMailbox } from "../../src/features/mailin/service";
import { ingestFile } from "../../src/features/reports/ingest";
import { mailboxUnreachable } from "../../src/features/mailin/contract";
import { makeTestApp, type TestApp } from "../support/app";
import { dovecotMissing, startDovecot, type Dovecot, type ImapUser } from "../support/dovecot";
import { signedInMember } from "../support/fixtures";
import { aggregateReportMail } from "../support/smtp";

if (dovecotMissing) console.log("IMAP tests skipped: /usr/sbin/dovecot is not installed (apt-get install dovecot-imapd; .ci/run does this).");

const ALICE: ImapUser = { user: "alice", password: "alice-imap-pass" };
const BOB: ImapUser = { user: "bob", password: "bob-imap-pass" };

let dovecot: Dovecot;
beforeAll(async () => {
  if (!dovecotMissing) dovecot = await startDovecot([ALICE, BOB]);
});
afterAll(async () => {
  await dovecot?.stop();
});

async function world() {
  const t = await makeTestApp();
  // the test dovecot listens on loopback
  t.deps.config.allowPrivateMailboxHosts = true;
  const org = async (domain: string) => {
    const member = await signedInMember(t.deps.store, "owner");
    await t.deps.store.write((tx) => tx.insert(t.deps.store.t.domains).values({ orgId: member.orgId, name: domain }));
    return member;
  };
  return { t, org };
}

async function configure(t: TestApp, cookie: string, user: ImapUser, overrides: Record<string, unknown> = {}) {
  const res = await t.json("PUT", "/api/settings/mailbox", { cookie, body: { host: dovecot.host, port: dovecot.port, tls: false, username: user.user, password: user.password, folder: "INBOX", ...overrides } });
  expect(res.status).toBe(200);
}

const reports = (t: TestApp, orgId: string) => t.deps.store.db.select().from(t.deps.store.t.aggregateReports).where(eq(t.deps.store.t.aggregateReports.orgId, orgId));
const mailboxRow = async (t: TestApp, orgId: string) => (await t.deps.store.db.select().from(t.deps.store.t.reportMailboxes).where(eq(t.deps.store.t.reportMailboxes.orgId, orgId)))[0]!;

setDefaultTimeout(30_000);

describe("IMAP report mailbox", () => {
  test.skipIf(dovecotMissing)("the connection test logs in and counts the folder, or says what is wrong", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    await dovecot.append(ALICE, "INBOX", aggregateReportMail({ domain: "example.com" }));
    const body = { host: dovecot.host, port: dovecot.port, tls: false, username: ALICE.user, password: ALICE.password, folder: "INBOX" };
    const ok = await t.json("POST", "/api/settings/mailbox/test", { cookie: a.cookie, body });
    expect(ok.body).toMatchObject({ ok: true, folder: "INBOX" });
    expect(ok.body.messages).toBeGreaterThan(0);

    const wrong = await t.json("POST", "/api/settings/mailbox/test", { cookie: a.cookie, body: { ...body, password: "nope" } });
    // a wrong password is answered like any other failure; the cause is in the server log
    expect(wrong.body).toEqual({ ok: false, error: mailboxUnreachable(dovecot) });
    expect(t.logs.some((line) => line.includes("imap_test_failed") && line.includes("refused the user name or password"))).toBe(true);
    expect(t.logs.some((line) => line.includes("nope"))).toBe(false);
    const folder = await t.json("POST", "/api/settings/mailbox/test", { cookie: a.cookie, body: { ...body, folder: "NoSuchFolder" } });
    expect(folder.body).toEqual({ ok: false, error: 'The folder "NoSuchFolder" does not exist in this mailbox.' });
    const tls = await t.json("POST", "/api/settings/mailbox/test", { cookie: a.cookie, body: { ...body, tls: true } });
    expect(tls.body).toEqual({ ok: false, error: mailboxUnreachable(dovecot) });

    // with nothing submitted, the saved mailbox (and its stored password) is tested
    await configure(t, a.cookie, ALICE);
    expect((await t.json("POST", "/api/settings/mailbox/test", { cookie: a.cookie })).body.ok).toBe(true);
    // a blank password in submitted settings means the stored one
    expect((await t.json("POST", "/api/settings/mailbox/test", { cookie: a.cookie, body: { ...body, password: "" } })).body.ok).toBe(true);
    t.close();
  });

  test.skipIf(dovecotMissing)("a poll ingests unseen report mail, files it in Processed, and non-reports in Invalid", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    await configure(t, a.cookie, BOB);
    const before = (await dovecot.count(BOB, "INBOX")) ?? 0;
    await dovecot.append(BOB, "INBOX", aggregateReportMail({ domain: "example.com", reportId: "imap-1" }));
    await dovecot.append(BOB, "INBOX", aggregateReportMail({ domain: "example.com", reportId: "imap-2", orgName: "outlook.com" }));
    await dovecot.append(BOB, "INBOX", "From: someone@spam.test\r\nTo: bob@example.com\r\nSubject: hello\r\n\r\nNot a report.\r\n");
    expect(await dovecot.count(BOB, "INBOX")).toBe(before + 3);

    const result = await pollMailbox(t.deps, a.orgId, ingestFile);
    expect(result).toEqual({ ok: true, outcome: { processed: 2, invalid: 1 + before, retried: 0 } });
    expect((await reports(t, a.orgId)).map((r) => r.reportId).sort()).toEqual(["imap-1", "imap-2"]);
    expect((await reports(t, a.orgId)).every((r) => r.source === "imap")).toBe(true);
    expect(await dovecot.count(BOB, "INBOX")).toBe(0);
    expect(await dovecot.count(BOB, "Processed")).toBe(2);
    expect(await dovecot.count(BOB, "Invalid")).toBe(1 + before);
    const row = await mailboxRow(t, a.orgId);
    expect(row.lastPolledAt).toBeInstanceOf(Date);
    expect(row.lastError).toBeNull();
    expect(row.lastPollMessages).toBe(3 + before);

    // the settings page sees the outcome
    const view = (await t.json("GET", "/api/settings/mailbox", { cookie: a.cookie })).body.mailbox;
    expect(view.lastPolledAt).not.toBeNull();
    expect(view.lastError).toBeNull();

    // a second poll finds nothing new and stores nothing twice
    expect(await pollMailbox(t.deps, a.orgId, ingestFile)).toEqual({ ok: true, outcome: { processed: 0, invalid: 0, retried: 0 } });
    expect(await reports(t, a.orgId)).toHaveLength(2);
    t.close();
  });

  test.skipIf(dovecotMissing)("a failing mailbox is recorded and never stops the others", async () => {
    const { t, org } = await world();
    const broken = await org("broken.example");
    const working = await org("working.example");
    await configure(t, broken.cookie, ALICE, { password: "wrong-password" });
    await configure(t, working.cookie, ALICE, { folder: "Working" });
    await dovecot.append(ALICE, "Working", aggregateReportMail({ domain: "working.example", reportId: "imap-working" }));

    await pollAllMailboxes(t.deps, ingestFile);

    expect((await mailboxRow(t, broken.orgId)).lastError).toBe(mailboxUnreachable(dovecot));
    expect((await mailboxRow(t, working.orgId)).lastError).toBeNull();
    expect((await reports(t, working.orgId)).map((r) => r.reportId)).toEqual(["imap-working"]);
    expect(await reports(t, broken.orgId)).toHaveLength(0);
    const view = (await t.json("GET", "/api/settings/mailbox", { cookie: broken.cookie })).body.mailbox;
    expect(view.lastError).toBe(mailboxUnreachable(dovecot));
    t.close();
  });

  test.skipIf(dovecotMissing)("a message whose ingestion fails unexpectedly stays unseen in the folder for the next poll", async () => {
    const { t, org } = await world();
    const a = await org("retry.example");
    await configure(t, a.cookie, ALICE, { folder: "Retry" });
    await dovecot.append(ALICE, "Retry", aggregateReportMail({ domain: "retry.example", reportId: "imap-retry" }));
    const failing = await pollMailbox(t.deps, a.orgId, async () => Promise.reject(new Error("database is locked")));
    expect(failing).toEqual({ ok: true, outcome: { processed: 0, invalid: 0, retried: 1 } });
    expect((await mailboxRow(t, a.orgId)).lastError).toContain("will be tried again");
    expect(await dovecot.count(ALICE, "Retry")).toBe(1);

    expect(await pollMailbox(t.deps, a.orgId, ingestFile)).toEqual({ ok: true, outcome: { processed: 1, invalid: 0, retried: 0 } });
    expect((await reports(t, a.orgId)).map((r) => r.reportId)).toEqual(["imap-retry"]);
    expect(await dovecot.count(ALICE, "Retry")).toBe(0);
    t.close();
  });

  test.skipIf(dovecotMissing)("Check now polls at once; two checks at the same time run one poll", async () => {
    const { t, org } = await world();
    const a = await org("now.example");
    await configure(t, a.cookie, ALICE, { folder: "Now" });
    await dovecot.append(ALICE, "Now", aggregateReportMail({ domain: "now.example", reportId: "imap-now" }));
    const [first, second] = await Promise.all([
      t.json("POST", "/api/settings/mailbox/poll", { cookie: a.cookie }),
      t.json("POST", "/api/settings/mailbox/poll", { cookie: a.cookie }),
    ]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ ok: true, outcome: { processed: 1, invalid: 0, retried: 0 } });
    expect(second.body.outcome).toEqual(first.body.outcome);
    expect(first.body.mailbox.lastPolledAt).not.toBeNull();
    expect((await reports(t, a.orgId)).map((r) => r.reportId)).toEqual(["imap-now"]);
    expect(await dovecot.count(ALICE, "Now")).toBe(0);
    t.close();
  });
});
