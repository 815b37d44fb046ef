/**
 * `seed-demo`: a demo organisation (slug "demo"), its owner, three domains and several weeks
 * of realistic aggregate, failure and TLS reports — all through the real ingestion code.
 * Idempotent: report ids are derived from the day, so a re-run stores only new days.
 */
import { sql } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";
import { aggregateXml, type GeneratedRecord } from "../../lib/reports/generate";
import { createUser, replacePasswordHash, userByEmail } from "../auth/service";
import { ensureDomains } from "../domains/service";
import { ensureMembership, ensureOrganization } from "../orgs/service";
import { ingestFile } from "./ingest";
import { raiseRollupVersion } from "./read-cache";
import { sendingServiceOf } from "./senders";
import { hashPassword } from "../auth/password-hash";

export const DEMO_SLUG = "demo";
export const DEMO_EMAIL = "demo@dmarcwarden.local";
export const DEMO_DOMAINS = ["example.com", "example.net", "example.org"];
const DAYS = 28;

interface Sender {
  ip: string;
  ptr: string | null;
  /** typical messages a day */
  volume: number;
  dkim: "pass" | "fail";
  spf: "pass" | "fail";
  dkimDomain?: string;
  spfDomain?: string;
}

const senders = (domain: string): Sender[] => [
  { ip: "209.85.220.41", ptr: "mail-sor-f41.google.com", volume: 420, dkim: "pass", spf: "pass" },
  { ip: "209.85.220.69", ptr: "mail-sor-f69.google.com", volume: 180, dkim: "pass", spf: "pass" },
  { ip: "40.107.22.101", ptr: "mail-db8eur05on2101.outbound.protection.outlook.com", volume: 95, dkim: "pass", spf: "pass" },
  { ip: "167.89.123.45", ptr: "o1.ptr4520.sendgrid.net", volume: 260, dkim: "pass", spf: "fail", spfDomain: "sendgrid.net" },
  { ip: "198.2.180.12", ptr: "mail180-12.suw21.mandrillapp.com", volume: 70, dkim: "fail", spf: "fail", dkimDomain: "mandrillapp.com", spfDomain: "mandrillapp.com" },
  { ip: "203.0.113.10", ptr: `mail.${domain}`, volume: 40, dkim: "fail", spf: "pass" },
  { ip: "185.220.101.33", ptr: null, volume: 6, dkim: "fail", spf: "fail", dkimDomain: "spoofer.example", spfDomain: "spoofer.example" },
  { ip: "45.95.147.201", ptr: null, volume: 4, dkim: "fail", spf: "fail", spfDomain: "bulk-mailer.example" },
  { ip: "2a01:4f8:c17:1a2b::1", ptr: null, volume: 2, dkim: "fail", spf: "fail", spfDomain: "vps.example" },
];

const REPORTERS = [
  { orgName: "google.com", email: "noreply-dmarc-support@google.com", share: 0.55 },
  { orgName: "Enterprise Outlook", email: "dmarcreport@microsoft.com", share: 0.3 },
  { orgName: "Yahoo", email: "dmarchelp@yahooinc.com", share: 0.15 },
];

/** Deterministic pseudo-random numbers, so a re-run generates the same reports. */
function prng(seed: string) {
  let h = 2166136261;
  for (const c of seed) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return () => {
    h += 0x6d2b79f5;
    let t = h;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const dayKey = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, "");

function demoRecords(domain: string, share: number, rand: () => number): GeneratedRecord[] {
  const out: GeneratedRecord[] = [];
  for (const s of senders(domain)) {
    // example.net sends only through well-configured services: its pass rate is high
    if (domain === "example.net" && s.ip.startsWith("198.2.")) continue;
    if (s.volume < 10 && rand() < 0.4) continue; // spoofers do not show up every day
    const count = Math.max(1, Math.round(s.volume * share * (0.6 + rand() * 0.8)));
    const pass = s.dkim === "pass" || s.spf === "pass";
    out.push({
      sourceIp: s.ip,
      count,
      disposition: pass ? "none" : domain === "example.com" ? "quarantine" : "none",
      dkim: s.dkim,
      spf: s.spf,
      headerFrom: domain,
      envelopeFrom: s.spfDomain ?? domain,
      dkimAuth: [{ domain: s.dkimDomain ?? domain, selector: s.dkimDomain ? "k1" : s.ptr?.endsWith("google.com") ? "google" : "selector1", result: s.dkimDomain ? "pass" : s.dkim }],
      spfAuth: [{ domain: s.spfDomain ?? domain, scope: "mfrom", result: s.spfDomain ? "pass" : s.spf }],
    });
  }
  return out;
}

function arfMessage(domain: string, day: Date, n: number): Uint8Array {
  const date = day.toUTCString();
  return new TextEncoder().encode(
    [
      "From: DMARC Failure Reports <dmarc-ruf@reports.yahoo.example>",
      `To: ruf@${domain}`,
      `Subject: DMARC failure report for ${domain}`,
      `Date: ${date}`,
      `Message-ID: <demo-ruf-${domain}-${dayKey(day)}-${n}@reports.yahoo.example>`,
      "MIME-Version: 1.0",
      'Content-Type: multipart/report; report-type=feedback-report; boundary="demo"',
      "",
      "--demo",
      "Content-Type: text/plain",
      "",
      `This is an authentication failure report for a message claiming to be from ${domain}.`,
      "--demo",
      "Content-Type: message/feedback-report",
      "",
      "Feedback-Type: auth-failure",
      "User-Agent: DemoReporter/1.0",
      "Version: 1",
      "Auth-Failure: dmarc",
      `Source-IP: ${n % 2 ? "185.220.101.33" : "45.95.147.201"}`,
      `Arrival-Date: ${date}`,
      `Reported-Domain: ${domain}`,
      `Original-Mail-From: <billing@${domain}>`,
      "Original-Rcpt-To: <victim@yahoo.example>",
      `Authentication-Results: mx.yahoo.example; dmarc=fail (p=quarantine) header.from=${domain}; spf=fail smtp.mailfrom=spoofer.example; dkim=none`,
      "Identity-Alignment: none",
      "Delivery-Result: spam",
      "",
      "--demo",
      "Content-Type: text/rfc822-headers",
      "",
      `From: "Accounts" <billing@${domain}>`,
      "To: victim@yahoo.example",
      "Subject: Overdue invoice - action required",
      `Message-ID: <spoof-${n}-${dayKey(day)}@spoofer.example>`,
      "",
      "--demo--",
      "",
    ].join("\r\n"),
  );
}

function tlsJson(domain: string, day: Date, rand: () => number): Uint8Array {
  const start = new Date(day);
  const failures = rand() < 0.3 ? Math.ceil(rand() * 5) : 0;
  return new TextEncoder().encode(
    JSON.stringify({
      "organization-name": "Google Inc.",
      "date-range": { "start-datetime": start.toISOString(), "end-datetime": new Date(start.getTime() + 86_399_000).toISOString() },
      "contact-info": "smtp-tls-reporting@google.com",
      "report-id": `demo-tls-${domain}-${dayKey(day)}`,
      policies: [
        {
          policy: { "policy-type": "sts", "policy-string": ["version: STSv1", "mode: testing", `mx: mx1.${domain}`, "max_age: 604800"], "policy-domain": domain, "mx-host": [`mx1.${domain}`] },
          summary: { "total-successful-session-count": 200 + Math.round(rand() * 100), "total-failure-session-count": failures },
          "failure-details": failures ? [{ "result-type": "certificate-expired", "sending-mta-ip": "209.85.220.41", "receiving-mx-hostname": `mx1.${domain}`, "failed-session-count": failures }] : [],
        },
      ],
    }),
  );
}

export interface DemoSeedResult {
  orgId: string;
  email: string;
  /** set only when the demo owner was created now, or its password was reset */
  password: string | null;
  ingested: number;
  duplicates: number;
}

function generatePassword(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

/** `resetPassword`: an existing demo owner gets a new generated password too (returned like a new one's). */
export async function seedDemo(deps: ServiceContext, options: { resetPassword?: boolean } = {}): Promise<DemoSeedResult> {
  const { store } = deps;
  // hashed before the write: the hash takes a while and the write holds the store's write lock
  const known = await userByEmail(deps, DEMO_EMAIL);
  const newPassword = known && !options.resetPassword ? null : generatePassword();
  const passwordHash = newPassword ? await hashPassword(newPassword) : null;
  const { orgId, password } = await store.write(async () => {
    const orgId = await ensureOrganization(deps, DEMO_SLUG, "Demo Company");
    const user = await userByEmail(deps, DEMO_EMAIL);
    const created = !user && passwordHash !== null;
    const userId = user?.id ?? (await createUser(deps, { name: "Demo Owner", email: DEMO_EMAIL, passwordHash }));
    const reset = !!user && passwordHash !== null && options.resetPassword === true;
    if (reset) await replacePasswordHash(deps, user.id, passwordHash);
    await ensureMembership(deps, orgId, userId, "owner");
    await ensureDomains(deps, orgId, DEMO_DOMAINS);
    return { orgId, password: created || reset ? newPassword : null };
  });

  // the demo's few hundred files say their line each at debug level: the summary says it once
  const quiet: ServiceContext = { ...deps, log: { ...deps.log, info: deps.log.debug } };
  let ingested = 0;
  let duplicates = 0;
  const count = (status: string) => (status === "ingested" ? ingested++ : status === "duplicate" ? duplicates++ : 0);
  const today = new Date(Date.UTC(deps.now().getUTCFullYear(), deps.now().getUTCMonth(), deps.now().getUTCDate()));
  for (let back = DAYS; back >= 1; back--) {
    const day = new Date(today.getTime() - back * 86_400_000);
    for (const domain of DEMO_DOMAINS) {
      for (const reporter of REPORTERS) {
        const rand = prng(`${domain}/${reporter.orgName}/${dayKey(day)}`);
        const xml = aggregateXml({
          orgName: reporter.orgName,
          email: reporter.email,
          reportId: `demo-${dayKey(day)}-${domain}-${reporter.orgName.replace(/\W+/g, "").toLowerCase()}`,
          begin: day,
          end: new Date(day.getTime() + 86_399_000),
          domain,
          p: domain === "example.com" ? "quarantine" : "none",
          records: demoRecords(domain, reporter.share, rand),
        });
        const result = await ingestFile(quiet, { orgId, fileName: `${reporter.orgName}!${domain}!${dayKey(day)}.xml`, bytes: new TextEncoder().encode(xml), source: "demo" });
        count(result.status);
      }
      const rand = prng(`${domain}/extra/${dayKey(day)}`);
      if (rand() < 0.35) count((await ingestFile(quiet, { orgId, fileName: `ruf-${domain}-${dayKey(day)}.eml`, bytes: arfMessage(domain, day, back), source: "demo" })).status);
      if (back % 7 === 0) count((await ingestFile(quiet, { orgId, fileName: `tls-${domain}-${dayKey(day)}.json`, bytes: tlsJson(domain, day, rand), source: "demo" })).status);
    }
  }
  await fillDemoReverseDns(deps, orgId);
  return { orgId, email: DEMO_EMAIL, password, ingested, duplicates };
}

/** The demo's senders have well-known names; fill them in without asking DNS. */
async function fillDemoReverseDns(deps: ServiceContext, orgId: string): Promise<void> {
  await deps.store.write(async () => {
    for (const domain of DEMO_DOMAINS) {
      for (const s of senders(domain)) {
        if (!s.ptr) continue;
        const { baseDomain, service } = sendingServiceOf(s.ptr);
        const serviceName = service?.name ?? (s.ptr.endsWith(domain) ? "Own mail server" : null);
        await deps.store.rows(sql`
          INSERT INTO source_names (org_id, source_ip, ptr, base_domain, service, service_type)
          VALUES (${orgId}, ${s.ip}, ${s.ptr}, ${baseDomain}, ${serviceName}, ${service?.type ?? null})
          ON CONFLICT (org_id, source_ip) DO NOTHING`);
      }
    }
    await raiseRollupVersion(deps.store, orgId);
  });
}
