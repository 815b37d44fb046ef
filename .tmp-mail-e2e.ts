import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDovecot } from "./tests/support/dovecot";
import { aggregateReportMail, sendMail } from "./tests/support/smtp";
import { freePort } from "./tests/support/server";
import { launchBrowser } from "./tests/support/browser";

const u = { user: "reports", password: "imap-secret-1" };
const dv = await startDovecot([u]);
const dir = mkdtempSync(join(tmpdir(), "dw-mail-e2e-"));
const port = await freePort();
const smtpPort = await freePort();
const proc = Bun.spawn([join(process.env.DW_DIST!, "dmarcwarden"), "serve", "--port", String(port), "--db", join(dir, "dw.db"), "--smtp-port", String(smtpPort), "--smtp-host", "127.0.0.1", "--smtp-domain", "reports.dmarcwarden.test", "--imap-poll-interval", "1"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
let out = "";
(async () => { for await (const c of proc.stdout as any) out += new TextDecoder().decode(c); })();
(async () => { for await (const c of proc.stderr as any) out += new TextDecoder().decode(c); })();
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) { try { if ((await fetch(base + "/healthz")).ok) break; } catch {} await Bun.sleep(100); }
const signup = await fetch(base + "/api/auth/signup", { method: "POST", headers: { "content-type": "application/json", origin: base }, body: JSON.stringify({ name: "Ada Admin", email: "ada@example.com", password: "a-long-password-1", organization: "Example Ltd" }) });
console.log("signup", signup.status);
const cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
const api = async (method: string, path: string, body?: unknown) => { const r = await fetch(base + path, { method, headers: { cookie, origin: base, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined }); return { status: r.status, body: await r.json().catch(() => null) }; };
console.log("domain", (await api("POST", "/api/domains", { name: "example.com" })).status);
const addr = await api("GET", "/api/settings/report-address");
console.log("address", addr);
const sent = await sendMail(smtpPort, { from: "noreply-dmarc-support@google.com", to: [addr.body.address] }, aggregateReportMail({ domain: "example.com", reportId: "e2e-smtp" }));
console.log("smtp", sent);
console.log("mailbox put", (await api("PUT", "/api/settings/mailbox", { host: "127.0.0.1", port: dv.port, tls: false, username: u.user, password: u.password, folder: "INBOX" })).status);
console.log("mailbox test", (await api("POST", "/api/settings/mailbox/test", {})).body);
await dv.append(u, "INBOX", aggregateReportMail({ domain: "example.com", reportId: "e2e-imap", orgName: "outlook.com" }));
await dv.append(u, "INBOX", "Subject: junk\r\n\r\nnot a report\r\n");
for (let i = 0; i < 80; i++) { const m = await api("GET", "/api/settings/mailbox"); if (m.body.mailbox.lastPolledAt) { console.log("polled", m.body.mailbox); break; } await Bun.sleep(1000); }
console.log("reports", JSON.stringify((await api("GET", "/api/dmarc-reports")).body).slice(0, 400));
console.log("folders", await dv.count(u, "INBOX"), await dv.count(u, "Processed"), await dv.count(u, "Invalid"));

const browser = await launchBrowser();
for (const width of [1280, 375]) {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  await ctx.addCookies(cookie.split("; ").map((c) => { const [name, ...v] = c.split("="); return { name: name!, value: v.join("="), url: base }; }));
  const page = await ctx.newPage();
  await page.goto(base + "/app/settings", { waitUntil: "networkidle" });
  await page.waitForTimeout(400);
  await page.screenshot({ path: `/tmp/shots-mail/settings-${width}.png`, fullPage: true });
  if (width === 375) console.log("WIDE", await page.evaluate(() => [...document.querySelectorAll("section, section *")].filter((e) => e.getBoundingClientRect().right > 376).slice(0, 8).map((e) => `${e.tagName}.${String(e.className).slice(0, 40)} ${Math.round(e.getBoundingClientRect().right)} ${(e.textContent ?? "").slice(0, 30)}`)));
  if (width === 1280) {
    await page.fill("input[type=password]", "wrong");
    await page.click("text=Test connection");
    await page.waitForSelector("text=Connection failed");
    await page.screenshot({ path: `/tmp/shots-mail/settings-testfail.png`, fullPage: true });
  }
  await ctx.close();
}
await browser.close();
proc.kill("SIGTERM");
await proc.exited;
console.log(out.split("\n").filter((l) => /smtp|imap|server_key|error/i.test(l)).join("\n"));
await dv.stop();
