/**
 * The getting-started checklist of a new organization: add a domain → publish DMARC with the
 * report address → first report received → fix the sources that fail → move to quarantine or
 * reject. Each step is checked from real state (the domains, their last DNS check, the daily
 * roll-ups), never from what the user clicked.
 */
import { parseDmarcRecord } from "./dns/dmarc";
import { proposedRua, reportPath, type ReportDestination, type ReportPath } from "./report-path";

export type OnboardingStepKey = "domain" | "dmarc" | "report" | "sources" | "enforce";

export interface OnboardingStep {
  key: OnboardingStepKey;
  title: string;
  /** what the state is now, in plain words */
  detail: string;
  done: boolean;
  /** the screen where the user acts on it */
  link: string;
}

export interface OnboardingDomain {
  id: string;
  name: string;
  /** reject | quarantine | none | missing | invalid; null until first checked */
  dmarcPolicy: string | null;
  /** the DMARC record the last check found */
  dmarcRecord: string | null;
  lastReportAt: Date | null;
}

export interface OnboardingInput {
  domains: OnboardingDomain[];
  destination: ReportDestination;
  /** DMARC results of the last PASS_WINDOW_DAYS days of reports (daily roll-ups) */
  recent: { messages: number; passed: number };
}

/** Reports are judged over this many days. */
export const PASS_WINDOW_DAYS = 30;
/** Mail passing DMARC at or above this share counts as fixed: the rest is forwarding noise (the readiness rule). */
export const PASS_TARGET_PERCENT = 98;

const ENFORCED = new Set(["quarantine", "reject"]);

/** The rua addresses of a record, lower-cased (none when the record is missing or unreadable). */
function ruaAddresses(domain: OnboardingDomain): string[] {
  if (!domain.dmarcRecord || !domain.dmarcPolicy || !["none", "quarantine", "reject"].includes(domain.dmarcPolicy)) return [];
  return parseDmarcRecord(domain.dmarcRecord, domain.name).rua.map((u) => u.address.toLowerCase());
}

/** A domain's record sends reports where dmarcwarden gets them (any address when the organization reads its own mailbox or uploads). */
function publishesOurRua(domain: OnboardingDomain, path: ReportPath): boolean {
  const found = ruaAddresses(domain);
  if (path.mode === "choice") return found.length > 0;
  return found.includes(proposedRua(path).toLowerCase());
}

const percent = (part: number, whole: number) => Math.round((part / whole) * 1000) / 10;

export function onboardingSteps(input: OnboardingInput): OnboardingStep[] {
  const { domains, destination, recent } = input;
  const first = domains[0];
  const paths = domains.map((d) => ({ domain: d, path: reportPath(d.name, destination) }));
  const publishing = paths.filter(({ domain, path }) => publishesOurRua(domain, path));
  const reported = domains.filter((d) => d.lastReportAt);
  const enforced = domains.filter((d) => d.dmarcPolicy && ENFORCED.has(d.dmarcPolicy));
  const rate = recent.messages > 0 ? percent(recent.passed, recent.messages) : null;
  const target = first ? `/app/domains/${encodeURIComponent(first.id)}` : "/app/domains";
  const unpublished = paths.find(({ domain, path }) => !publishesOurRua(domain, path));

  return [
    {
      key: "domain",
      title: "Add a domain",
      detail: domains.length ? `${domains.length === 1 ? first!.name : `${domains.length} domains`} monitored.` : "Add the domain you send mail from.",
      done: domains.length > 0,
      link: "/app/domains",
    },
    {
      key: "dmarc",
      title: "Publish DMARC with your report address",
      detail: !domains.length
        ? "Once a domain is added, publish a DMARC record whose rua= sends its reports to dmarcwarden."
        : publishing.length === domains.length
          ? "Every domain's DMARC record sends its reports to dmarcwarden."
          : `Publish "v=DMARC1; p=none; rua=${proposedRuaOf(unpublished!.path)}" at _dmarc.${unpublished!.domain.name}${unpublished!.domain.dmarcPolicy === null ? " (not checked yet)" : ""}.`,
      done: domains.length > 0 && publishing.length === domains.length,
      link: unpublished ? `/app/domains/${encodeURIComponent(unpublished.domain.id)}#report-path` : target,
    },
    {
      key: "report",
      title: "Receive the first report",
      detail: reported.length ? `Reports have arrived for ${reported.length === 1 ? reported[0]!.name : `${reported.length} domains`}.` : "Mailbox providers send a report about a day after they see mail from your domain.",
      done: reported.length > 0,
      link: "/app/reports",
    },
    {
      key: "sources",
      title: "Fix the sources that fail DMARC",
      detail:
        rate === null
          ? reported.length
            ? `No report covers mail of the last ${PASS_WINDOW_DAYS} days yet: the next ones show which services send as your domain and which of them fail.`
            : "Waiting for reports: they show which services send as your domain and which of them fail."
          : `${rate}% of ${recent.messages.toLocaleString("en-US")} messages passed DMARC in the last ${PASS_WINDOW_DAYS} days (the goal is ${PASS_TARGET_PERCENT}%).`,
      done: rate !== null && rate >= PASS_TARGET_PERCENT,
      link: "/app/tasks",
    },
    {
      key: "enforce",
      title: "Move to quarantine, then reject",
      detail: !domains.length
        ? "The last step: a policy that stops mail that fails DMARC."
        : `${enforced.length} of ${domains.length} ${domains.length === 1 ? "domain is" : "domains are"} at p=quarantine or p=reject.`,
      done: domains.length > 0 && enforced.length === domains.length,
      link: first ? `${target}#readiness` : "/app/domains",
    },
  ];
}

function proposedRuaOf(path: ReportPath): string {
  return `mailto:${proposedRua(path)}`;
}
