/**
 * The SMTP receiver, end to end over a real socket: nodemailer sends report mail to the
 * receiver on 127.0.0.1; the report lands in the organisation addressed; other recipients,
 * oversized mail and non-reports are refused with a clear reply.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { eq } from "drizzle-orm";
import { startSmtpReceiver, type SmtpReceiver } from "../../src/features/mailin/smtp-receiver";
import type { IngestFn } from "../../src/features/mailin/service";
import { ingestFile } from "../../src/features/reports/ingest";
import type { Config } from "../../src/config";
import { makeTestApp, type TestApp } from "../support/app";
import { createOrg } from "../support/fixtures";
import { aggregateReportMail, selfSignedCertificate, sendMail } from "../support/smtp";

const DOMAIN = "reports.dmarcwarden.test";

let t: TestApp | null = null;
let receiver: SmtpReceiver | null = null;
afterEach(async () => {
  await receiver?.stop();
  receiver = null;
  t?.close();
  t = null;
});

async function orgWithDomain(app: TestApp, domain: string) {
  const store = app.deps.store;
  const orgId = await createOrg(store);
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: domain }));
  const [row] = await store.db.select({ token: store.t.organizations.reportToken }).from(store.t.organizations).where(eq(store.t.organizations.id, orgId));
  return { orgId, address: `${row!.token}@${DOMAIN}` };
}

async function start(options: { maxBytes?: number; tls?: { cert: string; key: string }; ingest?: IngestFn; config?: Partial<Config> } = {}) {
  t = await makeTestApp({ config: options.config });
  receiver = await startSmtpReceiver(t.deps, options.ingest ?? ingestFile, { port: 0, host: "127.0.0.1", domain: DOMAIN, maxBytes: options.maxBytes ?? 1024 * 1024, tls: options.tls ?? null });
  return { t, port: receiver.port };
}

function storedReports(app: TestApp, orgId: string) {
  const reports = app.deps.store.t.aggregateReports;
  return app.deps.store.db.select().from(reports).where(eq(reports.orgId, orgId));
}

/** A bare SMTP dialogue (no SIZE parameter), to reach the DATA-phase size check. */
/** Each line (a whole message body ending in "\r\n." counts as one) gets one reply. */
async function rawDialogue(port: number, lines: string[]): Promise<string[]> {
  const socket = connect(port, "127.0.0.1");
  const replies: string[] = [];
  let buffer = "";
  let waiting: (() => void) | null = null;
  socket.on("data", (chunk) => {
    buffer += chunk.toString();
    let i: number;
    while ((i = buffer.indexOf("\r\n")) >= 0) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      if (/^\d{3} /.test(line)) {
        replies.push(line);
        waiting?.();
      }
    }
  });
  const next = () => new Promise<void>((resolve) => (waiting = resolve));
  await next(); // greeting
  for (const line of lines) {
    socket.write(line + "\r\n");
    await next();
  }
  socket.end();
  return replies;
}

describe("SMTP receiver", () => {
  test("report mail for an organization's address is accepted and stored for that organization", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    const other = await orgWithDomain(t, "other.example");
    const mail = aggregateReportMail({ domain: "example.com", reportId: "smtp-1", to: home.address });
    const result = await sendMail(port, { from: "noreply-dmarc-support@google.com", to: [home.address] }, mail);
    expect(result.accepted).toBe(true);
    expect(result.response).toContain("250");
    const stored = await storedReports(t, home.orgId);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.reportId).toBe("smtp-1");
    expect(stored[0]!.source).toBe("smtp");
    expect(stored[0]!.messageCount).toBe(15);
    expect(await storedReports(t, other.orgId)).toHaveLength(0);
    // one log line for the message, without the body or the sender's address
    const lines = t.logs.filter((l) => l.includes('"smtp_message"'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('"ingested"');
    expect(lines[0]).not.toContain("noreply-dmarc-support");
    expect(lines[0]).not.toContain("aggregate report from");
  });

  test("the same report sent twice is stored once and the second delivery is still accepted", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    const mail = aggregateReportMail({ domain: "example.com", reportId: "smtp-dup", to: home.address });
    expect((await sendMail(port, { from: "a@google.com", to: [home.address] }, mail)).accepted).toBe(true);
    const again = await sendMail(port, { from: "a@google.com", to: [home.address] }, mail);
    expect(again.accepted).toBe(true);
    expect(again.response).toContain("duplicate");
    expect(await storedReports(t, home.orgId)).toHaveLength(1);
  });

  test("a +suffix and upper-case letters in the address still reach the organization", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    const [token] = home.address.split("@");
    const to = `${token!.toUpperCase()}+ruf@${DOMAIN.toUpperCase()}`;
    const result = await sendMail(port, { from: "a@google.com", to: [to] }, aggregateReportMail({ domain: "example.com", reportId: "smtp-plus" }));
    expect(result.accepted).toBe(true);
    expect(await storedReports(t, home.orgId)).toHaveLength(1);
  });

  test("an unknown token is refused at RCPT with 550 and nothing is stored", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    const result = await sendMail(port, { from: "a@google.com", to: [`nosuchtoken123@${DOMAIN}`] }, aggregateReportMail({ domain: "example.com" }));
    expect(result.accepted).toBe(false);
    expect(result.responseCode).toBe(550);
    expect(result.response).toContain("No such report mailbox");
    expect(await storedReports(t, home.orgId)).toHaveLength(0);
  });

  test("mail for another domain is refused: the receiver is not a relay", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    const [token] = home.address.split("@");
    const result = await sendMail(port, { from: "a@google.com", to: [`${token}@gmail.com`] }, aggregateReportMail({ domain: "example.com" }));
    expect(result.accepted).toBe(false);
    expect(result.responseCode).toBe(550);
    expect(result.response).toContain("Relaying denied");
    expect(await storedReports(t, home.orgId)).toHaveLength(0);
  });

  test("mail over the size limit is refused, whether announced with SIZE or not", async () => {
    const { t, port } = await start({ maxBytes: 4096 });
    const home = await orgWithDomain(t, "example.com");
    const noise = (Buffer.from(crypto.getRandomValues(new Uint8Array(6000))).toString("base64").match(/.{1,76}/g) ?? []).join("\r\n");
    const big = aggregateReportMail({ domain: "example.com" }).replace("This is an aggregate report", `${noise}\r\nThis is an aggregate report`);
    expect(big.length).toBeGreaterThan(8192);
    const result = await sendMail(port, { from: "a@google.com", to: [home.address] }, big);
    expect(result.accepted).toBe(false);
    expect(result.responseCode).toBe(552);

    // a client that does not announce the size: refused after DATA
    const body = big.replace(/\r\n\./g, "\r\n..");
    const replies = await rawDialogue(port, ["EHLO client.test", "MAIL FROM:<a@google.com>", `RCPT TO:<${home.address}>`, "DATA", body + "\r\n."]);
    expect(replies.at(-1)).toMatch(/^552 .*too big.*4096/);
    expect(await storedReports(t, home.orgId)).toHaveLength(0);
  });

  test("a message that is not a report is refused with the reason", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    const spam = `From: someone@spam.test\r\nTo: ${home.address}\r\nSubject: Buy now\r\n\r\nCheap watches.\r\n`;
    const result = await sendMail(port, { from: "someone@spam.test", to: [home.address] }, spam);
    expect(result.accepted).toBe(false);
    expect(result.responseCode).toBe(554);
    expect(result.response).toContain("Report refused");
    expect(await storedReports(t, home.orgId)).toHaveLength(0);
  });

  test("a report whose domain belongs to no organization addressed is refused", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    await orgWithDomain(t, "foreign.example");
    const result = await sendMail(port, { from: "a@google.com", to: [home.address] }, aggregateReportMail({ domain: "foreign.example" }));
    expect(result.accepted).toBe(false);
    expect(result.responseCode).toBe(554);
    expect(await storedReports(t, home.orgId)).toHaveLength(0);
  });

  test("a report over --max-records-per-report is refused for good (554, not 451) and nothing is stored", async () => {
    const { t, port } = await start({ config: { maxRecordsPerReport: 3 } });
    const home = await orgWithDomain(t, "example.com");
    const rows = Array.from({ length: 4 }, (_, i): [string, number, boolean, boolean] => [`192.0.2.${i + 1}`, 1, true, true]);
    const over = await sendMail(port, { from: "a@google.com", to: [home.address] }, aggregateReportMail({ domain: "example.com", reportId: "too-many", rows }));
    expect(over.accepted).toBe(false);
    expect(over.responseCode).toBe(554);
    expect(over.response).toContain("more than 3 records");
    expect(await storedReports(t, home.orgId)).toHaveLength(0);
    const at = await sendMail(port, { from: "a@google.com", to: [home.address] }, aggregateReportMail({ domain: "example.com", reportId: "enough", rows: rows.slice(0, 3) }));
    expect(at.accepted).toBe(true);
    expect((await storedReports(t, home.orgId)).map((r) => r.reportId)).toEqual(["enough"]);
  });

  test("ingestion failing unexpectedly answers 451 so the sender retries later", async () => {
    const { t, port } = await start({ ingest: async () => Promise.reject(new Error("disk full")) });
    const home = await orgWithDomain(t, "example.com");
    const result = await sendMail(port, { from: "a@google.com", to: [home.address] }, aggregateReportMail({ domain: "example.com" }));
    expect(result.accepted).toBe(false);
    expect(result.responseCode).toBe(451);
  });

  test("without a certificate STARTTLS is not offered", async () => {
    const { t, port } = await start();
    const home = await orgWithDomain(t, "example.com");
    const replies = await rawDialogue(port, ["EHLO client.test"]);
    expect(replies.join("\n")).not.toContain("STARTTLS");
    const result = await sendMail(port, { from: "a@google.com", to: [home.address] }, aggregateReportMail({ domain: "example.com" }), { requireTLS: true });
    expect(result.accepted).toBe(false);
  });

  test("with a certificate, mail sent over STARTTLS is accepted", async () => {
    const pem = selfSignedCertificate();
    const { t, port } = await start({ tls: pem });
    const home = await orgWithDomain(t, "example.com");
    const result = await sendMail(port, { from: "a@google.com", to: [home.address] }, aggregateReportMail({ domain: "example.com", reportId: "smtp-tls" }), { requireTLS: true, ca: pem.cert });
    expect(result.response).toContain("250");
    expect(result.accepted).toBe(true);
    expect((await storedReports(t, home.orgId)).map((r) => r.reportId)).toEqual(["smtp-tls"]);
    expect(t.logs.find((l) => l.includes('"smtp_message"'))).toContain('"tls":true');
  });
});
