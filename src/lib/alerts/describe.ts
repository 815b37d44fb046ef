/**
 * An event in words, shared by every channel (email, Slack, Teams): a title, one sentence
 * saying what happened and what to do, the facts behind it and the page that shows it.
 */
import type { AlertEvent, AlertEventType, WatchedRecord } from "./events";
import type { AlertSummaryData } from "./volume";

export type AlertSeverity = "critical" | "warning" | "info" | "good";

export interface AlertDescription {
  title: string;
  summary: string;
  facts: { label: string; value: string }[];
  severity: AlertSeverity;
  /** the page that shows the problem (absolute when publicUrl was given) */
  link: string;
  linkLabel: string;
}

export interface DescribeContext {
  organization: { name: string };
  /** the server's public address (--public-url), without a trailing slash */
  publicUrl: string;
}

const RECORD_NAMES: Record<WatchedRecord, string> = { dmarc: "DMARC", spf: "SPF", dkim: "DKIM", mx: "MX", mta_sts: "MTA-STS", tls_rpt: "TLS-RPT" };

function recordLocation(record: WatchedRecord, domain: string, selector?: string): string {
  switch (record) {
    case "dmarc":
      return `_dmarc.${domain}`;
    case "dkim":
      return `${selector ?? "?"}._domainkey.${domain}`;
    case "mta_sts":
      return `_mta-sts.${domain}`;
    case "tls_rpt":
      return `_smtp._tls.${domain}`;
    default:
      return domain;
  }
}

/** Long values (a DKIM key) cut for a message; the page has the whole record. */
export function clip(value: string, max = 160): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

const str = (v: unknown) => (v === null || v === undefined ? "" : String(v));
const day = (v: unknown) => (typeof v === "string" && !Number.isNaN(Date.parse(v)) ? new Date(v).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" }) : str(v));
const percent = (v: unknown) => (typeof v === "number" ? `${v}%` : "no data");

/** A kind of alert in a few words (a summary's counts). */
export const ALERT_KIND_LABELS: Record<AlertEventType, string> = {
  "dns.record_appeared": "DNS record published",
  "dns.record_changed": "DNS record changed",
  "dns.record_disappeared": "DNS record removed",
  "dns.status_worse": "Protection got worse",
  "dns.status_better": "Protection improved",
  "dns.dmarc_weakened": "DMARC policy weakened",
  "dns.spf_too_many_lookups": "SPF needs too many lookups",
  "dns.dkim_weak_key": "Weak DKIM key",
  "reports.new_failing_source": "New source failing DMARC",
  "reports.pass_rate_low": "Low DMARC pass rate",
  "reports.stopped": "Reports stopped",
  "reports.failure_report": "Failure report received",
  "account.trial_ending": "Trial ending",
  "account.payment_failed": "Payment failed",
  "account.member_joined": "Member joined",
  "account.mailbox_failing": "Report mailbox failing",
  test: "Test alert",
  "alerts.summary": "Summary of held alerts",
};

const when = (v: unknown) => (typeof v === "string" && !Number.isNaN(Date.parse(v)) ? new Date(v).toUTCString().replace(/:\d\d GMT$/, " UTC") : str(v));

/** "a (3), b (2) and 4 more" */
function listed(items: { name: string; count: number }[], more: number): string {
  const text = items.map((i) => (i.count > 1 ? `${i.name} (${i.count})` : i.name)).join(", ");
  return more > 0 ? `${text} and ${more} more` : text;
}

function summaryWords(d: Partial<AlertSummaryData>): Pick<AlertDescription, "title" | "summary" | "facts" | "severity"> {
  const held = Number(d.held ?? 0);
  const limit = Number(d.limit ?? 0);
  const minutes = Number(d.windowMinutes ?? 10);
  const facts: AlertDescription["facts"] = (d.kinds ?? []).map((k) => ({ label: ALERT_KIND_LABELS[k.type] ?? k.type, value: String(k.count) }));
  if (d.domains?.length) facts.push({ label: "Domains", value: listed(d.domains.map((x) => ({ name: x.domain, count: x.count })), d.moreDomains ?? 0) });
  if (d.sources?.length) facts.push({ label: "Sources", value: listed(d.sources.map((x) => ({ name: x.sourceIp, count: x.count })), d.moreSources ?? 0) });
  return {
    title: `${held} more alert${held === 1 ? "" : "s"} held back`,
    summary: `This channel gets at most ${limit} alert${limit === 1 ? "" : "s"} every ${minutes} minutes. ${held} more arrived between ${when(d.from)} and ${when(d.to)}; they are counted here instead of sent one by one, and each is listed in the app's notifications.`,
    facts,
    severity: "warning",
  };
}

function pageFor(event: AlertEvent): { path: string; label: string } {
  if (event.type === "alerts.summary") return { path: "/app/dashboard", label: "Open the dashboard" };
  const q = event.domain ? `?domain=${encodeURIComponent(event.domain)}` : "";
  if (event.type === "reports.new_failing_source") return { path: `/app/threats${q}`, label: "See the sources" };
  if (event.type === "reports.pass_rate_low" || event.type === "reports.failure_report") return { path: `/app/reports${q}`, label: "Open the reports" };
  if (event.type.startsWith("dns.") || event.type === "reports.stopped") return { path: `/app/domains${q}`, label: "Open the domain" };
  if (event.type.startsWith("account.")) return { path: "/app/settings", label: "Open Settings" };
  return { path: "/app/settings", label: "Open dmarcwarden" };
}

function words(event: AlertEvent): Pick<AlertDescription, "title" | "summary" | "facts" | "severity"> {
  const d = event.data;
  const domain = event.domain ?? "";
  switch (event.type) {
    case "dns.record_appeared":
    case "dns.record_changed":
    case "dns.record_disappeared": {
      const record = d.record as WatchedRecord;
      const name = RECORD_NAMES[record] ?? str(record).toUpperCase();
      const where = recordLocation(record, domain, d.selector as string | undefined);
      const facts = [{ label: "Record", value: where }];
      if (d.before) facts.push({ label: "Before", value: clip(str(d.before)) });
      if (d.after) facts.push({ label: "Now", value: clip(str(d.after)) });
      const core = record === "dmarc" || record === "spf" || record === "dkim";
      if (event.type === "dns.record_appeared") return { title: `${name} record published for ${domain}`, summary: `A ${name} record now exists at ${where}. If you did not publish it, check who can edit your DNS.`, facts, severity: "info" };
      if (event.type === "dns.record_changed") return { title: `${name} record changed for ${domain}`, summary: `The ${name} record at ${where} is different from the last check. If you did not expect this change, compare it with the record your provider gave you.`, facts, severity: "warning" };
      return { title: `${name} record removed from ${domain}`, summary: `The ${name} record at ${where} is gone. ${core ? "Receivers can no longer use it to tell your mail from forgeries: publish it again." : "Publish it again if it was removed by mistake."}`, facts, severity: core ? "critical" : "warning" };
    }
    case "dns.status_worse":
    case "dns.status_better": {
      const worse = event.type === "dns.status_worse";
      return {
        title: `${domain} is now ${str(d.after)} (was ${str(d.before)})`,
        summary: worse ? `The protection of ${domain} against spoofing got worse. Open the domain to see which record changed and how to fix it.` : `The protection of ${domain} against spoofing improved.`,
        facts: [
          { label: "Before", value: str(d.before) },
          { label: "Now", value: str(d.after) },
        ],
        severity: worse ? (d.after === "vulnerable" ? "critical" : "warning") : "good",
      };
    }
    case "dns.dmarc_weakened": {
      const before = (d.before ?? {}) as { policy?: string; pct?: number; rua?: string[] };
      const after = (d.after ?? {}) as { policy?: string; pct?: number; rua?: string[] };
      const reasons = (d.reasons ?? []) as string[];
      const facts: AlertDescription["facts"] = [];
      if (reasons.includes("policy")) facts.push({ label: "Policy", value: `${str(before.policy)} → ${str(after.policy)}` });
      if (reasons.includes("pct")) facts.push({ label: "Applied to", value: `${str(before.pct)}% → ${str(after.pct)}% of failing mail` });
      if (reasons.includes("rua")) facts.push({ label: "Aggregate reports", value: `${(before.rua ?? []).join(", ")} → none` });
      return {
        title: `DMARC policy of ${domain} weakened`,
        summary: `Mail forged as ${domain} is now less likely to be stopped${reasons.includes("rua") ? ", and no aggregate reports will be sent" : ""}. If you did not make this change, restore the previous DMARC record.`,
        facts,
        severity: "critical",
      };
    }
    case "dns.spf_too_many_lookups":
      return {
        title: `SPF of ${domain} needs ${str(d.lookupCount)} DNS lookups (limit ${str(d.lookupLimit)})`,
        summary: `Receivers stop evaluating SPF after ${str(d.lookupLimit)} lookups and treat it as an error, so SPF fails for all mail of ${domain}. Remove include: entries you no longer use or replace them with ip4:/ip6: ranges.`,
        facts: [{ label: "Lookups", value: `${str(d.lookupCount)} of ${str(d.lookupLimit)}` }],
        severity: "critical",
      };
    case "dns.dkim_weak_key":
      return {
        title: `Weak DKIM key for ${domain} (selector ${str(d.selector)})`,
        summary: `The DKIM key at ${str(d.selector)}._domainkey.${domain} is ${d.bits ? `${str(d.bits)}-bit ` : ""}${str(d.keyType).toUpperCase()}, which can be broken or is refused by receivers. Ask your email provider for a 2048-bit key and publish it.`,
        facts: [
          { label: "Selector", value: str(d.selector) },
          { label: "Key", value: d.bits ? `${str(d.keyType).toUpperCase()} ${str(d.bits)} bits` : str(d.keyType).toUpperCase() },
        ],
        severity: "warning",
      };
    case "reports.new_failing_source":
      return {
        title: `New source failing DMARC for ${domain}: ${str(d.sourceIp)}`,
        summary: `${str(d.sourceIp)}${d.sourceName ? ` (${str(d.sourceName)})` : ""} sent ${str(d.failedMessages)} messages as ${domain} that failed DMARC. If it is one of your services, set up SPF and DKIM for it; if not, someone may be spoofing you.`,
        facts: [
          { label: "Source", value: d.sourceName ? `${str(d.sourceIp)} (${str(d.sourceName)})` : str(d.sourceIp) },
          { label: "Failing messages", value: `${str(d.failedMessages)} of ${str(d.messages)}` },
        ],
        severity: "warning",
      };
    case "reports.pass_rate_low":
      return {
        title: `DMARC pass rate of ${domain} fell to ${percent(d.after)}`,
        summary: `Over the last day ${percent(d.after)} of the mail sent as ${domain} passed DMARC${typeof d.before === "number" ? `, against ${percent(d.before)} over the previous 7 days` : ""}. Open the reports to see which sources fail.`,
        facts: [
          { label: "Last day", value: `${percent(d.after)} of ${str(d.messages)} messages` },
          { label: "Previous 7 days", value: percent(d.before) },
        ],
        severity: "warning",
      };
    case "reports.stopped":
      return {
        title: `No DMARC reports for ${domain} for ${str(d.silentHours)} hours`,
        summary: `${domain} used to receive aggregate reports and none arrived since ${str(d.lastReportAt)}. Check that the DMARC record still has your rua= address and that the report mailbox is being read.`,
        facts: [{ label: "Last report", value: str(d.lastReportAt) }],
        severity: "warning",
      };
    case "reports.failure_report":
      return { title: `Failure report received for ${domain}`, summary: `A receiver sent a forensic (failure) report about a message sent as ${domain} that failed DMARC.`, facts: [], severity: "info" };
    case "account.trial_ending":
      return {
        title: "Your trial ends in 2 days",
        summary: `The trial ends on ${day(d.trialEndsAt)}. Choose a plan in Settings to keep monitoring your domains without a break.`,
        facts: [{ label: "Trial ends", value: day(d.trialEndsAt) }],
        severity: "warning",
      };
    case "account.payment_failed":
      return {
        title: "A payment failed",
        summary: "The card on file was declined for the latest invoice. Update the payment method in Settings → Billing so the subscription stays active.",
        facts: [
          { label: "Invoice", value: str(d.invoice) },
          ...(typeof d.amountDue === "number" ? [{ label: "Amount due", value: `${(d.amountDue / 100).toFixed(2)} ${str(d.currency).toUpperCase()}`.trim() }] : []),
        ],
        severity: "critical",
      };
    case "account.member_joined":
      return { title: `${str(d.name) || str(d.email)} joined the organization`, summary: `${str(d.name)} (${str(d.email)}) accepted an invitation and joined as ${str(d.role)}.`, facts: [{ label: "Role", value: str(d.role) }], severity: "info" };
    case "account.mailbox_failing":
      return {
        title: `The report mailbox failed to poll ${str(d.failures)} times in a row`,
        summary: `dmarcwarden could not read reports from ${str(d.username)} on ${str(d.host)}: ${str(d.error) || "the connection failed"}. Check the mailbox settings (host, password, folder); reports wait in the mailbox until it works again.`,
        facts: [
          { label: "Mailbox", value: `${str(d.username)} on ${str(d.host)}` },
          { label: "Failures in a row", value: str(d.failures) },
        ],
        severity: "warning",
      };
    case "alerts.summary":
      return summaryWords(d as Partial<AlertSummaryData>);
    case "test":
      return { title: "Test alert from dmarcwarden", summary: "This channel works: alerts will arrive here.", facts: [], severity: "info" };
    default:
      return { title: str(d.title) || event.type, summary: str(d.message), facts: [], severity: "info" };
  }
}

export function describeAlert(event: AlertEvent, context: DescribeContext): AlertDescription {
  const page = pageFor(event);
  return { ...words(event), link: `${context.publicUrl.replace(/\/+$/, "")}${page.path}`, linkLabel: page.label };
}
