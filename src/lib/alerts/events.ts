/**
 * Alert events: what the server tells an organisation about, through every channel. An
 * event is one fact about one cause; `dedupeKey` names the condition behind it, so the same
 * condition alerts once until it clears and returns (see conditions.ts).
 */

export const DNS_EVENT_TYPES = [
  "dns.record_appeared",
  "dns.record_changed",
  "dns.record_disappeared",
  "dns.status_worse",
  "dns.status_better",
  "dns.dmarc_weakened",
  "dns.spf_too_many_lookups",
  "dns.dkim_weak_key",
] as const;

export const REPORT_EVENT_TYPES = ["reports.new_failing_source", "reports.pass_rate_low", "reports.stopped", "reports.failure_report"] as const;

export const ACCOUNT_EVENT_TYPES = ["account.trial_ending", "account.payment_failed", "account.member_joined", "account.mailbox_failing"] as const;

/**
 * The summary a channel receives for the alerts held back past its organisation's limit
 * (src/lib/alerts/volume.ts). Like "test" it goes to one channel and is not in the feed, which
 * lists each held alert itself.
 */
export const SUMMARY_EVENT_TYPE = "alerts.summary";

/** Every event type a channel can receive; "test" is what "Send a test" delivers. */
export const ALERT_EVENT_TYPES = [...DNS_EVENT_TYPES, ...REPORT_EVENT_TYPES, ...ACCOUNT_EVENT_TYPES, "test", SUMMARY_EVENT_TYPE] as const;

/** Events sent to a channel but not listed in the feed (nor counted as the organisation's alerts). */
export const CHANNEL_ONLY_EVENT_TYPES: readonly AlertEventType[] = ["test", SUMMARY_EVENT_TYPE];

export type DnsEventType = (typeof DNS_EVENT_TYPES)[number];
export type ReportEventType = (typeof REPORT_EVENT_TYPES)[number];
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[number];

/** The DNS records whose appearance, change or disappearance is an event. */
export type WatchedRecord = "dmarc" | "spf" | "dkim" | "mx" | "mta_sts" | "tls_rpt";

export interface AlertEvent {
  type: AlertEventType;
  /** the domain the event is about (null for account events) */
  domain: string | null;
  /** the facts: `before` and `after` where something changed, and what else explains it */
  data: Record<string, unknown>;
  /** names the condition: equal keys are the same cause */
  dedupeKey: string;
}

/** "dns" for DNS events, "reports" for report events, "account" otherwise: the groups Settings' toggles switch. */
export function eventCategory(type: AlertEventType): "dns" | "reports" | "account" | "test" {
  if (CHANNEL_ONLY_EVENT_TYPES.includes(type)) return "test";
  return type.slice(0, type.indexOf(".")) as "dns" | "reports" | "account";
}
