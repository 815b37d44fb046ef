/**
 * Reports with out-of-range values, through an upload, a real SMTP session and an IMAP poll of
 * a real dovecot, on the store the run uses: a count past 2^53-1 or below 0, a period in year 5138 or ending before it
 * begins, a source address that is not one, a control character in a stored string. Each is
 * refused with a reason naming the field (HTTP 200 with the file "rejected"; SMTP 554, a
 * permanent answer, never 451; IMAP files it in Invalid, never leaves it unread), and nothing of
 * it is stored: the reports, records and roll-ups are what the valid report before it left.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { gzipSync, strToU8 } from "fflate";
import { eq, sql } from "drizzle-orm";
import { pollMailbox } from "../../src/features/mailin/service";
import { startSmtpReceiver, type SmtpReceiver } from "../../src/features/mailin/smtp-receiver";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { makeTestApp, type TestApp } from "../support/app";
import { dovecotMissing, startDovecot, type Dovecot, type ImapUser } from "../support/dovecot";
import { signedInMember } from "../support/fixtures";
import { fixtureText, reportMail, tlsReportJson } from "../support/report-fixtures";
import { aggregateReportXml, sendMail } from "../support/smtp";

const MAIL_DOMAIN = "reports.dmarcwarden.test";
const REFUSED = "The report was refused and nothing of it was stored. Ask the reporter for a corrected report.";

if (dovecotMissing) console.log("IMAP test skipped: /usr/sbin/dovecot is not installed (apt-get install dovecot-imapd; .ci/run does this).");

let t: TestApp;
let orgId: string;
let receiver: SmtpReceiver | null = null;
let cookie: string;
let address: string;
beforeEach(async () => {
  t = await makeTestApp();
  const member = await signedInMember(t.deps.store, "owner");
  cookie = member.cookie;
  orgId = member.orgId;
  const store = t.deps.store;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name: "example.com" }));
  const [row] = await store.db.select({ token: store.t.organizations.reportToken }).from(store.t.organizations).where(eq(store.t.organizations.id, member.orgId));
  address = `${row!.token}@${MAIL_DOMAIN}`;
});
afterEach(async () => {
  await receiver?.stop();
  receiver = null;
  await reverseDnsSettled();
  t.close();
});

/** A report mail as a reporter sends it, with `xml` attached gzipped. */
const mailOf = (xml: string) => new TextDecoder().decode(reportMail([{ fileName: "google.com!example.com!1700000000!1700086399.xml.gz", contentType: "application/gzip", data: gzipSync(strToU8(xml)) }]));

/** The valid report (records 192.0.2.10 × 12 and 198.51.100.7 × 3) with `edit` applied to its XML. */
const reportXml = (reportId: string, edit: (xml: string) => string = (x) => x) => edit(aggregateReportXml({ domain: "example.com", reportId }));

/** Each out-of-range value, as an edit of the valid report, and the start of its refusal. */
const CASES: [name: string, edit: (xml: string) => string, reason: string][] = [
  ["a count of 10^23", (x) => x.replace("<count>3</count>", "<count>100000000000000000000000</count>"), 'Record 2 of the aggregate report has <count> "100000000000000000000000"; a count is a whole number from 0 to 9,007,199,254,740,991.'],
  ["a count of -1", (x) => x.replace("<count>3</count>", "<count>-1</count>"), 'Record 2 of the aggregate report has <count> "-1"; a count is a whole number from 0 to 9,007,199,254,740,991.'],
  ["a begin in year 5138", (x) => x.replace(/<date_range>.*<\/date_range>/, "<date_range><begin>99999999999</begin><end>99999999999</end></date_range>"), "The aggregate report's <date_range> <begin> is 5138-11-16T09:46:39.000Z; a report's dates lie between 2000-01-01 and two days after the server's date"],
  ["an end before the begin", (x) => x.replace(/<date_range>.*<\/date_range>/, "<date_range><begin>1700000000</begin><end>1699990000</end></date_range>"), "The aggregate report's <date_range> <end> (2023-11-14T19:26:40.000Z) is before its <date_range> <begin> (2023-11-14T22:13:20.000Z)."],
  ["a source IP that is not an address", (x) => x.replace("<source_ip>198.51.100.7</source_ip>", "<source_ip>999.1.1.1;DROP TABLE</source_ip>"), 'Record 2 of the aggregate report has <source_ip> "999.1.1.1;DROP TABLE", which is not an IPv4 or IPv6 address.'],
  ["a NUL in report_id", (x) => x.replace(/<report_id>([^<]*)<\/report_id>/, "<report_id>$1\u0000x</report_id>"), "The aggregate report's <report_id> holds a control character (U+0000), which no report field may hold."],
  ["an escape in org_name", (x) => x.replace("<org_name>google.com</org_name>", "<org_name>google\u001b[2J.com</org_name>"), "The aggregate report's <org_name> holds a control character (U+001B), which no report field may hold."],
  ["a DEL in a selector", (x) => x.replace("<selector>s1</selector>", "<selector>s1&#x7f;</selector>"), "The aggregate report's <selector> holds a control character (U+007F), which no report field may hold."],
];

/** What the reports left in the database: every report, record and roll-up row, as text. */
async function stored() {
  const q = async (query: string) => (await t.deps.store.rows<Record<string, unknown>>(sql.raw(query))).map((row) => Object.values(row).map(String).join(" | "));
  return {
    reports: await q("SELECT report_id, reporter_org, date_begin, date_end, message_count FROM aggregate_reports ORDER BY report_id"),
    records: await q("SELECT source_ip, message_count FROM aggregate_records ORDER BY source_ip"),
    days: await q("SELECT day, messages, passed FROM daily_domain_stats ORDER BY day"),
    senders: await q("SELECT day, source_ip, messages FROM daily_sender_stats ORDER BY day, source_ip"),
    selectors: await q("SELECT selector, results FROM dkim_selectors_seen ORDER BY selector"),
    tls: await q("SELECT report_id, successful_sessions, failed_sessions FROM tls_reports ORDER BY report_id"),
  };
}

function upload(name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], name));
  return t.json("POST", "/api/reports/upload", { body: form, cookie });
}

/** A valid report stored first: what a refusal must leave as it is. */
async function baseline() {
  const res = await upload("valid.xml", strToU8(reportXml("valid-1")));
  expect(res.body.results[0].status).toBe("ingested");
  const before = await stored();
  expect(before.records).toEqual(["192.0.2.10 | 12", "198.51.100.7 | 3"]);
  return before;
}

describe("uploaded reports with out-of-range values", () => {
  test.each(CASES)("%s: the file is refused with the reason, as XML and gzip, and nothing is stored", async (_, edit, reason) => {
    const before = await baseline();
    for (const [name, bytes] of [
      ["bad.xml", strToU8(reportXml("bad-xml", edit))],
      ["bad.xml.gz", gzipSync(strToU8(reportXml("bad-gz", edit)))],
    ] as const) {
      const res = await upload(name, bytes);
      expect(res.status).toBe(200);
      expect(res.body.results[0]).toMatchObject({ fileName: name, status: "rejected", code: "invalid", reports: [] });
      expect(res.body.results[0].error).toStartWith(reason);
      expect(res.body.results[0].error).toEndWith(REFUSED);
    }
    expect(await stored()).toEqual(before);
  });

  test("an SMTP TLS report counting 10^23 sessions, or naming a sending MTA that is not an address, is refused", async () => {
    const before = await stored();
    const tls = (edit: (doc: any) => void) => {
      const doc = JSON.parse(new TextDecoder().decode(tlsReportJson("example.com", `tls-${crypto.randomUUID()}`)));
      edit(doc);
      return strToU8(JSON.stringify(doc));
    };
    for (const [bytes, reason] of [
      [tls((d) => (d.policies[0].summary["total-successful-session-count"] = 1e23)), 'The SMTP TLS report\'s "total-successful-session-count" 1e+23 is not a whole number'],
      [tls((d) => (d.policies[0]["failure-details"][0]["sending-mta-ip"] = "999.1.1.1;DROP TABLE")), 'The SMTP TLS report\'s "sending-mta-ip" "999.1.1.1;DROP TABLE" is not an IPv4 or IPv6 address.'],
    ] as const) {
      const res = await upload("tls.json", bytes);
      expect(res.status).toBe(200);
      expect(res.body.results[0]).toMatchObject({ status: "rejected", code: "invalid" });
      expect(res.body.results[0].error).toStartWith(reason);
    }
    expect(await stored()).toEqual(before);
  });

  test("a failure report whose Source-IP is not an address is stored without it", async () => {
    const mail = fixtureText("arf-auth-failure.eml").replace("Source-IP: 192.0.2.1", "Source-IP: 999.1.1.1;DROP TABLE");
    const res = await upload("ruf.eml", strToU8(mail));
    expect(res.body.results[0]).toMatchObject({ status: "ingested", kind: "failure" });
    const rows = await t.deps.store.rows<{ source_ip: unknown }>(sql`SELECT source_ip FROM failure_reports`);
    expect(rows.map((r) => r.source_ip)).toEqual([null]);
  });
});

describe("report mail with out-of-range values", () => {
  test.each(CASES)("%s: the message is refused permanently (554) with the reason, and nothing is stored", async (_, edit, reason) => {
    const before = await baseline();
    receiver = await startSmtpReceiver(t.deps, ingestFile, { port: 0, host: "127.0.0.1", domain: MAIL_DOMAIN, maxBytes: 1024 * 1024, tls: null });
    const mail = mailOf(reportXml(`bad-${crypto.randomUUID()}`, edit));
    const result = await sendMail(receiver.port, { from: "noreply-dmarc-support@google.com", to: [address] }, mail);
    expect(result.accepted).toBe(false);
    expect(result.responseCode).toBe(554);
    expect(result.response).toContain(`Report refused: ${reason}`);
    expect(await stored()).toEqual(before);
  });
});

describe("report mail with out-of-range values in a polled mailbox", () => {
  const USER: ImapUser = { user: "values", password: "values-imap-pass" };
  let dovecot: Dovecot;
  beforeAll(async () => {
    if (!dovecotMissing) dovecot = await startDovecot([USER]);
  });
  afterAll(async () => {
    await dovecot?.stop();
  });

  test.skipIf(dovecotMissing)("each refused report is filed in Invalid, not left unread, and only the valid one is stored", async () => {
    t.deps.config.allowPrivateMailboxHosts = true;
    const res = await t.json("PUT", "/api/settings/mailbox", { cookie, body: { host: dovecot.host, port: dovecot.port, tls: false, username: USER.user, password: USER.password, folder: "INBOX" } });
    expect(res.status).toBe(200);
    await dovecot.append(USER, "INBOX", mailOf(reportXml("imap-valid")));
    for (const [name, edit] of CASES) await dovecot.append(USER, "INBOX", mailOf(reportXml(`imap-${name}`, edit)));

    expect(await pollMailbox(t.deps, orgId, ingestFile)).toEqual({ ok: true, outcome: { processed: 1, invalid: CASES.length, retried: 0 } });
    expect(await dovecot.count(USER, "INBOX")).toBe(0);
    expect(await dovecot.count(USER, "Invalid")).toBe(CASES.length);
    const after = await stored();
    expect(after.reports.map((r) => r.split(" | ")[0])).toEqual(["imap-valid"]);
    expect(after.records).toEqual(["192.0.2.10 | 12", "198.51.100.7 | 3"]);
  });
});
