/**
 * Tasks & Issues (SPEC §3 Task): what an organisation should fix next, derived from the state
 * of its domains' DNS records and from what its DMARC reports say — never stored, so a task
 * disappears the moment its cause is fixed. Each task names one domain and says, in plain
 * words, what is wrong and what to change.
 *
 * Priorities: high = mail is unprotected or broken now (no DMARC, broken SPF/DKIM, your own
 * service's mail being quarantined or rejected, spoofed mail reaching inboxes); medium = a gap
 * to close before enforcing (p=none, no DKIM, no reports arriving); low = fine-tuning
 * (quarantine → reject, pct below 100, unrecognised senders to review).
 */
import { parseDmarcRecord } from "./dns/dmarc";
import { isYours } from "./readiness/explain";
import { proposedRua, reportPath, reportPathAdvice, type ReportDestination } from "./report-path";
import type { SenderMark } from "./senders";

export type TaskPriority = "high" | "medium" | "low";
export type TaskCategory = "dmarc" | "spf" | "dkim" | "reports" | "senders";

/** SPEC §3 Task, plus the domain it is about and where to act. */
export interface Task {
  id: string;
  title: string;
  description: string;
  priority: TaskPriority;
  /** when the cause was first seen (ISO) */
  createdAt: string;
  domain: string;
  category: TaskCategory;
  /** the app screen where the user acts on it */
  link: string;
}

/** One domain as the DNS checks last saw it (at the moment the tasks are derived for). */
export interface DomainState {
  id: string;
  name: string;
  /** reject | quarantine | none | missing | invalid; null until first checked */
  dmarcPolicy: string | null;
  spfStatus: string | null;
  dkimStatus: string | null;
  /** the DMARC record text last found (null when none) */
  dmarcRecord: string | null;
  createdAt: Date;
  lastReportAt: Date | null;
  /** when each status took its current value (falls back to createdAt) */
  since?: Partial<Record<"dmarc" | "spf" | "dkim", Date>>;
}

/** DMARC-failing mail for one domain from one sender (a named service, or unrecognised), in the report window. */
export interface FailingSender {
  domainId: string;
  /** the sending service (e.g. "SendGrid") when recognised from reverse DNS; null = unrecognised */
  service: string | null;
  /** the Senders view's name for it (the service, else its reverse-DNS base domain, else its IP) and key (src/lib/senders.ts) */
  sender?: string | null;
  senderKey?: string | null;
  /**
   * the user's mark on the sender: an approved one gets a set-up task like a known service,
   * one marked not ours counts as spoofing even when it is a known service
   */
  mark?: SenderMark | null;
  /** distinct source IPs */
  sources: number;
  messages: number;
  /** failing messages receivers delivered anyway (disposition none) */
  delivered: number;
  firstSeenAt: Date;
}

/** All mail reported for one domain in the report window. */
export interface DomainTraffic {
  domainId: string;
  messages: number;
  passing: number;
}

export interface TaskInput {
  now: Date;
  domains: DomainState[];
  failing?: FailingSender[];
  traffic?: DomainTraffic[];
  /** the organisation's report address (Settings → DMARC rua) for the suggested records */
  ruaAddress?: string | null;
  /**
   * how the organisation receives reports (receiver, mailbox, neither): when given, the
   * suggested rua and the advice of each task follow the domain's report path instead of ruaAddress
   */
  destination?: ReportDestination;
}

/** Reports are looked at over this many days. */
export const REPORT_WINDOW_DAYS = 7;
/** A domain with a report address that received nothing for this many days gets a task. */
export const NO_REPORTS_DAYS = 7;
/** A newly added domain gets this long before "no reports yet" (reports come once a day). */
export const NEW_DOMAIN_GRACE_HOURS = 48;
/** Unrecognised senders get a review task from this many failing messages in the window. */
export const REVIEW_SENDERS_MIN = 10;
/** Spoofed messages delivered in the window that make p=none urgent. */
export const SPOOFING_URGENT = 20;
/** Named services listed per domain at most. */
export const SERVICES_PER_DOMAIN = 3;

const DAY_MS = 86_400_000;
const PRIORITY_RANK: Record<TaskPriority, number> = { high: 0, medium: 1, low: 2 };
/** `count.toLocaleString("en-US")`, without Intl for the whole non-negative counts the tasks print. */
function n(count: number): string {
  if (!Number.isSafeInteger(count) || count < 0 || Object.is(count, -0)) return count.toLocaleString("en-US");
  const digits = String(count);
  if (count < 1000) return digits;
  let at = digits.length % 3 || 3;
  let out = digits.slice(0, at);
  for (; at < digits.length; at += 3) out += `,${digits.slice(at, at + 3)}`;
  return out;
}
const plural = (count: number, one: string, many = `${one}s`) => `${n(count)} ${count === 1 ? one : many}`;

/** What the tasks read of a DMARC record (its valid report addresses, its pct), by domain and record text. */
interface DmarcFacts {
  ruaCount: number;
  pct: number | undefined;
}
/**
 * Small caches of what the tasks work out again and again from the same values (a domain's
 * record, a sender's name, a status date), each bounded: cleared whole once it holds this many.
 */
const CACHE_LIMIT = 10_000;
function remember<K, V>(cache: Map<K, V>, key: K, value: V): V {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
  return value;
}

/** The last record parsed for each domain name (a record is parsed again only when it changes). */
const dmarcFactsCache = new Map<string, { record: string; facts: DmarcFacts }>();
function dmarcFacts(record: string, domain: string): DmarcFacts {
  const known = dmarcFactsCache.get(domain);
  if (known && known.record === record) return known.facts;
  const parsed = parseDmarcRecord(record, domain);
  return remember(dmarcFactsCache, domain, { record, facts: { ruaCount: parsed.rua.length, pct: parsed.pct } }).facts;
}

const slugs = new Map<string, string>();
function slug(value: string): string {
  return slugs.get(value) ?? remember(slugs, value, value.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "x");
}

const isoStrings = new Map<number, string>();
/** `date.toISOString()`, remembered by instant. */
function iso(date: Date): string {
  const at = date.getTime();
  return isoStrings.get(at) ?? remember(isoStrings, at, date.toISOString());
}

/** `a.localeCompare(b)`'s order for two ISO instants: code-unit order when both have the 24-character form (they differ only in digits). */
const byInstant = (a: string, b: string) => (a.length === 24 && b.length === 24 ? (a < b ? -1 : a > b ? 1 : 0) : a.localeCompare(b));

/** The failing senders of each domain. */
function failingByDomain(failing: FailingSender[] | undefined): Map<string, FailingSender[]> {
  const failingOf = new Map<string, FailingSender[]>();
  for (const f of failing ?? []) {
    const list = failingOf.get(f.domainId);
    if (list) list.push(f);
    else failingOf.set(f.domainId, [f]);
  }
  return failingOf;
}

/** Tasks for the organisation, most urgent first, newest first within a priority. */
export function deriveTasks(input: TaskInput): Task[] {
  const tasks: Task[] = [];
  const traffic = new Map((input.traffic ?? []).map((t) => [t.domainId, t]));
  const failingOf = failingByDomain(input.failing);
  for (const d of input.domains) {
    domainTasks(d, input, failingOf.get(d.id) ?? [], traffic.get(d.id), (code, category, priority, text) => {
      const { createdAt, title, description, link = "/app/domains" } = text();
      tasks.push({ id: `${code}:${d.id}`, title, description, priority, createdAt, domain: d.name, category, link });
    });
  }
  return tasks.sort((a, b) => PRIORITY_RANK[a.priority] - PRIORITY_RANK[b.priority] || byInstant(b.createdAt, a.createdAt) || a.id.localeCompare(b.id));
}

/**
 * How many tasks `deriveTasks` gives for `input`, by the same rules without writing their text
 * (dates, titles, descriptions, the suggested rua): what the MSP portfolio shows of a client's
 * tasks. Neither the window's traffic nor the report destination decides whether a task exists,
 * only what it says, so neither is asked for.
 */
export function countTasks(input: Omit<TaskInput, "traffic" | "ruaAddress" | "destination">): number {
  let count = 0;
  for (const n of countTasksPerDomain(input)) count += n;
  return count;
}

/**
 * `countTasks` of each domain of `input.domains`, in their order. A domain's tasks depend on the
 * domain, its own failing senders and the moment only, so the domains of many organizations
 * (the MSP portfolio's clients) are counted in one call, each organization's count the sum of
 * its domains'.
 */
export function countTasksPerDomain(input: Omit<TaskInput, "traffic" | "ruaAddress" | "destination">): number[] {
  const counts: number[] = [];
  const failingOf = failingByDomain(input.failing);
  let count = 0;
  const emit = () => {
    count++;
  };
  for (const d of input.domains) {
    count = 0;
    domainTasks(d, input, failingOf.get(d.id) ?? NO_SENDERS, undefined, emit);
    counts.push(count);
  }
  return counts;
}

/** The report window as the tasks' text says it. */
const IN_THE_WINDOW = `in the last ${REPORT_WINDOW_DAYS} days`;
/** A domain without failing senders of one kind (never changed). */
const NO_SENDERS: readonly FailingSender[] = Object.freeze([]);

/** A task's text, worked out only when the task is listed (countTasks never asks for it). */
interface TaskText {
  createdAt: string;
  title: string;
  description: string;
  /** default /app/domains */
  link?: string;
}

/** The rules of one domain: `emit` is called once per task, in the order they are found. */
function domainTasks(
  d: DomainState,
  input: TaskInput,
  failing: readonly FailingSender[],
  traffic: DomainTraffic | undefined,
  emit: (code: string, category: TaskCategory, priority: TaskPriority, text: () => TaskText) => void,
): void {
  const since = (area: "dmarc" | "spf" | "dkim") => iso(d.since?.[area] ?? d.createdAt);
  const add = emit;
  // the suggested report address and how reports sent there reach dmarcwarden (no advice
  // without the destination): worked out only for the tasks that print them
  let suggestion: { rua: string; reach: string } | undefined;
  const suggest = () => {
    if (!suggestion) {
      const path = input.destination ? reportPath(d.name, input.destination) : null;
      suggestion = { rua: path ? proposedRua(path) : input.ruaAddress || `dmarc@${d.name}`, reach: path ? ` ${reportPathAdvice(path)}` : "" };
    }
    return suggestion;
  };
  const policy = d.dmarcPolicy;
  const enforced = policy === "quarantine" || policy === "reject";
  const parsed = d.dmarcRecord && (enforced || policy === "none") ? dmarcFacts(d.dmarcRecord, d.name) : null;
  const window = IN_THE_WINDOW;

  // the domain's readiness panel: the blockers of the next stage, each with its exact fix
  const readiness = () => `/app/domains/${encodeURIComponent(d.id)}#readiness`;
  const nameOf = (f: FailingSender) => f.service ?? f.sender ?? "An approved sender";
  // yours (blockers, most failing first): a known service not marked "not ours", or any sender
  // marked approved (the readiness rule); the rest (unrecognised) is spoofing or unknown
  let blockers: readonly FailingSender[] = NO_SENDERS;
  let unrecognised: readonly FailingSender[] = NO_SENDERS;
  let spoofed = 0;
  let spoofedDelivered = 0;
  let spoofSources = 0;
  if (failing.length) {
    const own: FailingSender[] = [];
    const others: FailingSender[] = [];
    for (const f of failing) {
      if (isYours({ service: f.service, mark: f.mark ?? null })) own.push(f);
      else {
        others.push(f);
        spoofed += f.messages;
        spoofedDelivered += f.delivered;
        spoofSources += f.sources;
      }
    }
    if (own.length > 1) own.sort((a, b) => b.messages - a.messages);
    blockers = own;
    unrecognised = others;
  }

  // DMARC
  if (policy === "missing") {
    add("dmarc-missing", "dmarc", "high", () => {
      const { rua, reach } = suggest();
      return { createdAt: since("dmarc"), title: `Publish a DMARC record for ${d.name}`,
        description: `${d.name} has no DMARC record, so anyone can send mail that claims to come from it and you get no reports about it. Add a TXT record named _dmarc.${d.name} with the value "v=DMARC1; p=none; rua=mailto:${rua}" to start monitoring.${reach}` };
    });
  } else if (policy === "invalid") {
    add("dmarc-invalid", "dmarc", "high", () => ({ createdAt: since("dmarc"), title: `Fix the DMARC record for ${d.name}`,
      description: `The DMARC record at _dmarc.${d.name} has an error, so receivers ignore it and your domain is unprotected. Run a DNS Lookup for ${d.name} to see the exact problem, then correct the TXT record.`, link: "/app/dns" }));
  } else if (policy === "none") {
    add("dmarc-none", "dmarc", spoofedDelivered >= SPOOFING_URGENT ? "high" : "medium", () => {
      const rate = traffic && traffic.messages > 0 ? (traffic.passing / traffic.messages) * 100 : null;
      const parts = [`${d.name} is at p=none: mail that fails DMARC is still delivered, so your domain can still be spoofed.`];
      if (spoofedDelivered > 0) parts.push(`${plural(spoofedDelivered, "message")} from ${plural(spoofSources, "unrecognised source")} failed DMARC and reached inboxes ${window}.`);
      if (blockers.length) parts.push(`${plural(blockers.length, "sender")} of yours (${blockers.slice(0, SERVICES_PER_DOMAIN).map(nameOf).join(", ")}) would be quarantined: fix ${blockers.length === 1 ? "it" : "them"} first; the readiness panel of ${d.name} says how.`);
      else if (rate !== null && rate >= 95) parts.push(`${Math.round(rate * 10) / 10}% of its mail passed DMARC ${window}, so it is ready: change p=none to p=quarantine in the record at _dmarc.${d.name}.`);
      else parts.push(`Once your reports show that every service you send with passes, change p=none to p=quarantine, then to p=reject; the readiness panel of ${d.name} shows what would be quarantined.`);
      return { createdAt: since("dmarc"), title: `Move ${d.name} from p=none to quarantine`, description: parts.join(" "), link: readiness() };
    });
  } else if (policy === "quarantine") {
    add("dmarc-quarantine", "dmarc", "low", () => ({ createdAt: since("dmarc"), title: `Move ${d.name} from quarantine to reject`,
      description: `${d.name} is at p=quarantine: failing mail goes to the spam folder instead of being refused. ${blockers.length ? `${plural(blockers.length, "sender")} of yours still fail${blockers.length === 1 ? "s" : ""} DMARC and would be rejected: fix ${blockers.length === 1 ? "it" : "them"} first (see the readiness panel).` : `When your reports show no legitimate mail failing, change p=quarantine to p=reject at _dmarc.${d.name}.`}`, link: readiness() }));
  }
  if (parsed) {
    if (parsed.ruaCount === 0) {
      add("dmarc-no-rua", "reports", "medium", () => {
        const { rua, reach } = suggest();
        return { createdAt: since("dmarc"), title: `Receive DMARC reports for ${d.name}`,
          description: `The DMARC record of ${d.name} has no report address (rua=), so no receiver tells you who sends mail in its name. Add "rua=mailto:${rua}" to the record at _dmarc.${d.name}.${reach}` };
      });
    }
    if (enforced && parsed.pct !== undefined && parsed.pct < 100) {
      add("dmarc-pct", "dmarc", "low", () => ({ createdAt: since("dmarc"), title: `Apply ${d.name}'s DMARC policy to all mail`,
      description: `Only ${parsed.pct}% of the failing mail for ${d.name} gets the ${policy} policy; the rest is delivered normally. Raise pct to 100 (or remove pct=) in the record at _dmarc.${d.name}.` }));
    }
  }

  // SPF
  if (d.spfStatus === "missing") {
    add("spf-missing", "spf", "high", () => ({ createdAt: since("spf"), title: `Publish an SPF record for ${d.name}`,
      description: `${d.name} has no SPF record, so receivers cannot tell which servers may send its mail. Add a TXT record on ${d.name} that lists your mail services, for example "v=spf1 include:_spf.google.com ~all" for Google Workspace.` }));
  } else if (d.spfStatus === "invalid") {
    add("spf-invalid", "spf", "high", () => ({ createdAt: since("spf"), title: `Fix the SPF record for ${d.name}`,
      description: `The SPF record of ${d.name} has an error, so receivers treat it as a permanent error and SPF fails for all of its mail. Run a DNS Lookup for ${d.name} to see the problem, then correct the TXT record (keep only one record starting with v=spf1).`, link: "/app/dns" }));
  } else if (d.spfStatus === "too many lookups") {
    add("spf-lookups", "spf", "high", () => ({ createdAt: since("spf"), title: `Cut the SPF DNS lookups of ${d.name} to 10 or fewer`,
      description: `The SPF record of ${d.name} needs more than 10 DNS lookups, the most receivers allow; past that SPF fails for all of its mail. Remove include: entries for services you no longer use, or replace some with the services' ip4:/ip6: ranges.`, link: "/app/dns" }));
  }

  // DKIM
  if (d.dkimStatus === "missing") {
    add("dkim-missing", "dkim", "medium", () => ({ createdAt: since("dkim"), title: `Set up DKIM for ${d.name}`,
      description: `No DKIM key was found for ${d.name}. Turn on DKIM signing in each service that sends its mail (Google Workspace, Microsoft 365, your newsletter tool…) and publish the key each one gives you; DKIM keeps your mail passing DMARC even when it is forwarded.` }));
  } else if (d.dkimStatus === "weak key") {
    add("dkim-weak", "dkim", "medium", () => ({ createdAt: since("dkim"), title: `Replace the weak DKIM key of ${d.name}`,
      description: `${d.name} publishes a DKIM key that is too short; receivers ignore signatures made with it. Create a new 2048-bit key in your mail service, publish it under a new selector, then remove the old one.`, link: "/app/dns" }));
  } else if (d.dkimStatus === "invalid") {
    add("dkim-invalid", "dkim", "high", () => ({ createdAt: since("dkim"), title: `Fix the DKIM record of ${d.name}`,
      description: `A DKIM record of ${d.name} cannot be read, so signatures made with it fail. Run a DNS Lookup for ${d.name} to see which selector is broken, then publish the key exactly as your mail service gives it.`, link: "/app/dns" }));
  }

  // Named services failing DMARC: likely your own mail, not yet authenticated.
  // (and senders the user approved)
  const services = blockers.slice(0, SERVICES_PER_DOMAIN);
  for (const f of services) {
    const name = nameOf(f);
    add(`sender-${slug(name)}`, "senders", enforced ? "high" : "medium", () => {
      const outcome = enforced
        ? `Receivers are ${policy === "reject" ? "refusing" : "sending to spam"} this mail now under your p=${policy} policy.`
        : "It blocks p=quarantine: it will be quarantined or refused once you enforce DMARC.";
      const fix = f.service
        ? `If you use ${f.service}, turn on DKIM signing for ${d.name} in it, or add its include to your SPF record.`
        : `You marked it as yours: have it sign its mail with DKIM for ${d.name}, or authorize its servers in your SPF record.`;
      return { createdAt: iso(f.firstSeenAt), title: `Authenticate ${name} for ${d.name}`,
        description: `${name} sent ${plural(f.messages, "message")} as ${d.name} ${window} that failed DMARC (neither SPF nor DKIM matched ${d.name}). ${outcome} ${fix} The readiness panel of ${d.name} gives the exact fix for each of its servers.`, link: readiness() };
    });
  }

  // Unrecognised senders to review (spoofing, or a server of yours with no reverse DNS)
  if (spoofed >= REVIEW_SENDERS_MIN && !(policy === "none" && spoofedDelivered > 0)) {
    add("senders-review", "senders", "low", () => ({ createdAt: iso(unrecognised.reduce((m, f) => (f.firstSeenAt < m ? f.firstSeenAt : m), unrecognised[0]!.firstSeenAt)), title: `Review unrecognised senders for ${d.name}`,
      description: `${plural(spoofSources, "unrecognised source")} sent ${plural(spoofed, "message")} as ${d.name} ${window} that failed DMARC. If any of them is your own server, authorize it in SPF or sign its mail with DKIM; otherwise your policy is doing its job.`, link: "/app/threats" }));
  }

  // Reports not arriving
  if (parsed && parsed.ruaCount > 0) {
    const graceEnds = d.createdAt.getTime() + NEW_DOMAIN_GRACE_HOURS * 3_600_000;
    if (!d.lastReportAt && input.now.getTime() >= graceEnds) {
      add("reports-none", "reports", "medium", () => {
        const { rua, reach } = suggest();
        return { createdAt: new Date(graceEnds).toISOString(), title: `No DMARC reports received yet for ${d.name}`,
          description: `${d.name} was added ${plural(Math.floor((input.now.getTime() - d.createdAt.getTime()) / DAY_MS), "day")} ago and no report has arrived. Check that rua= in the record at _dmarc.${d.name} points to this organization's report address (see Settings), e.g. "rua=mailto:${rua}".${reach}`, link: "/app/settings" };
      });
    } else if (d.lastReportAt && input.now.getTime() - d.lastReportAt.getTime() >= NO_REPORTS_DAYS * DAY_MS) {
      const lastReport = d.lastReportAt.getTime();
      add("reports-stale", "reports", "medium", () => ({ createdAt: new Date(lastReport + NO_REPORTS_DAYS * DAY_MS).toISOString(), title: `No DMARC reports for ${d.name} in ${NO_REPORTS_DAYS} days`,
      description: `The last report for ${d.name} arrived ${plural(Math.floor((input.now.getTime() - lastReport) / DAY_MS), "day")} ago. Check that rua= in the record at _dmarc.${d.name} still points to this organization's report address and that the report mailbox is being read (see Settings).`, link: "/app/settings" }));
    }
  }
}

/** A history row of the DNS checks (domain_record_history), oldest first per domain. */
export interface StatusHistoryRow {
  domainId: string;
  checkedAt: Date;
  dmarcPolicy: string;
  spfStatus: string;
  dkimStatus: string;
  dmarcRecord: string | null;
}

const STATUS_FIELDS = [["dmarc", "dmarcPolicy"], ["spf", "spfStatus"], ["dkim", "dkimStatus"]] as const;

/**
 * When each of a domain's statuses took the value it has at the end of `rows` (one domain's
 * history, oldest first): the start of the last unbroken run of that value.
 */
export function statusSince(rows: StatusHistoryRow[]): Partial<Record<"dmarc" | "spf" | "dkim", Date>> {
  const out: Partial<Record<"dmarc" | "spf" | "dkim", Date>> = {};
  const last = rows.at(-1);
  if (!last) return out;
  for (const [area, field] of STATUS_FIELDS) {
    let start = last.checkedAt;
    for (let i = rows.length - 1; i >= 0 && rows[i]![field] === last[field]; i--) start = rows[i]!.checkedAt;
    out[area] = start;
  }
  return out;
}
