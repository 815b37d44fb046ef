/**
 * Report mail in the built executable: `serve --smtp-port … --smtp-domain …` receives a
 * report over SMTP for the organisation's address, and a mailbox configured in the API is
 * polled from a real dovecot ("Check now"); both reports show up in the report list. Also
 * the settings page shows the address a user publishes. IMAP part skipped only without dovecot.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { launchBrowser } from "../support/browser";
import { dovecotMissing, startDovecot, type Dovecot } from "../support/dovecot";
import { freePort, startServer, type RunningServer } from "../support/server";
import { aggregateReportMail, sendMail } from "../support/smtp";

if (dovecotMissing) console.log("IMAP part skipped: /usr/sbin/dovecot is not installed (apt-get install dovecot-imapd; .ci/run does this).");

const IMAP_USER = { user: "reports", password: "imap-e2e-secret" };
let server: RunningServer;
let smtpPort: number;
let dovecot: Dovecot | null = null;
let cookie = "";

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(server.url + path, { method, headers: { cookie, origin: server.url, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json().catch(() => null)) as any, headers: res.headers };
}

beforeAll(async () => {
  smtpPort = await freePort();
  server = await startServer({ args: ["--smtp-port", String(smtpPort), "--smtp-host", "127.0.0.1", "--smtp-domain", "reports.dmarcwarden.test", "--imap-poll-interval", "60", "--allow-private-mailbox-hosts"] });
  if (!dovecotMissing) dovecot = await startDovecot([IMAP_USER]);
  const signup = await api("POST", "/api/auth/signup", { name: "Ada Admin", email: "ada@example.com", password: "a-long-password-1", organization: "Example Ltd" });
  expect(signup.status).toBeLessThan(300);
  cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  expect((await api("POST", "/api/domains", { name: "example.com" })).status).toBeLessThan(300);
});
afterAll(async () => {
  await server?.stop();
  await dovecot?.stop();
});

test("report mail sent to the organization's address is stored and listed", async () => {
  const address = await api("GET", "/api/settings/report-address");
  expect(address.body.address).toMatch(/^[a-z0-9]+@reports\.dmarcwarden\.test$/);
  expect(address.body.rua).toBe(`mailto:${address.body.address}`);
  const sent = await sendMail(smtpPort, { from: "noreply-dmarc-support@google.com", to: [address.body.address] }, aggregateReportMail({ domain: "example.com", reportId: "e2e-smtp" }));
  expect(sent.response).toContain("250");
  const refused = await sendMail(smtpPort, { from: "a@google.com", to: ["someone@example.org"] }, aggregateReportMail({ domain: "example.com" }));
  expect(refused.responseCode).toBe(550);
  const list = await api("GET", "/api/dmarc-reports");
  expect(list.body.map((r: any) => r.orgName)).toContain("google.com");
  // the server key was created beside the database, readable by its owner only
  expect(statSync(`${server.dbPath}.key`).mode & 0o777).toBe(0o600);
  expect(server.output()).toContain('"smtp_message"');
});

test.skipIf(dovecotMissing)("a configured IMAP mailbox is polled into reports and filed in Processed", async () => {
  const d = dovecot!;
  const saved = await api("PUT", "/api/settings/mailbox", { host: d.host, port: d.port, tls: false, username: IMAP_USER.user, password: IMAP_USER.password, folder: "INBOX" });
  expect(saved.status).toBe(200);
  expect(JSON.stringify(saved.body)).not.toContain(IMAP_USER.password);
  await d.append(IMAP_USER, "INBOX", aggregateReportMail({ domain: "example.com", reportId: "e2e-imap", orgName: "outlook.com" }));
  const checked = await api("POST", "/api/settings/mailbox/poll");
  expect(checked.body).toMatchObject({ ok: true, outcome: { processed: 1, invalid: 0 } });
  const list = await api("GET", "/api/dmarc-reports");
  expect(list.body.map((r: any) => r.orgName)).toContain("outlook.com");
  expect(await d.count(IMAP_USER, "Processed")).toBe(1);
  expect(server.output()).not.toContain(IMAP_USER.password);
});

test("the settings page shows the report address to publish", async () => {
  const address = (await api("GET", "/api/settings/report-address")).body.address as string;
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    await context.addCookies(cookie.split("; ").map((pair) => ({ name: pair.split("=")[0]!, value: pair.slice(pair.indexOf("=") + 1), url: server.url })));
    const page = await context.newPage();
    await page.goto(`${server.url}/app/settings`);
    await page.getByTestId("report-address").waitFor();
    expect(await page.getByTestId("report-address").textContent()).toBe(address);
    expect(await page.getByText(`rua=mailto:${address}`).first().isVisible()).toBe(true);
  } finally {
    await browser.close();
  }
});
