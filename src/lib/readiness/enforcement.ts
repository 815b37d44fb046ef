/**
 * The road to p=reject for one domain: where it stands (no record, none, quarantine with its
 * pct, reject), the next safe stage, the blockers (legitimate-looking sources whose mail fails
 * DMARC and would be quarantined or rejected at the next stage, with the fix) and the projection
 * of the next stage over the period's reports. Pure: the caller reads the reports and DNS.
 *
 * Rules (docs/guides/reports.md, "Readiness"):
 * - a source is yours when it is a known sending service not marked "not ours", or any source
 *   marked approved; everything else (unrecognised, marked not ours) is not yours;
 * - a blocker is a sender (the Senders view's grouping) that is yours, has DMARC-failing mail in
 *   the period and passes less than 98% (above that the failures are forwarding noise);
 * - the projection counts every DMARC-failing message of the period the next stage would
 *   quarantine or reject, split yours-not-yet-authenticated / not yours; moving from no record
 *   to p=none affects no mail; at p=reject (no next stage) it is what the policy does now;
 * - ready when there is no blocker; a pct/t= ramp is recommended when the blockers' failing
 *   mail is at most RAMP_MAX_SHARE of all mail; above that, fix them first.
 */
import { parseTagList } from "../dns/types";
import type { SourceExplanation } from "./explain";

export type Stage = "missing" | "none" | "quarantine" | "reject";

/** pass rate (percent) from which a yours source's failures count as forwarding, not a blocker */
export const BLOCKER_PASS_RATE = 98;
/** blockers' failing mail, as a share of all mail, up to which a ramp is safe */
export const RAMP_MAX_SHARE = 0.02;
export const RAMP_PCTS = [10, 25, 50, 100] as const;

export interface Blocker {
  /** the sender's name (service, reverse-DNS base domain or IP) */
  source: string;
  senderKey: string;
  service: string | null;
  mark: "approved" | "not_ours" | null;
  /** its IPs with failing mail, most first */
  ips: string[];
  /** its DMARC-failing messages over the period: what the next stage would quarantine or reject */
  messages: number;
  /** all its messages over the period */
  totalMessages: number;
  /** the one change that fixes it (for the IP with most failing mail) */
  fix: string;
}

export interface RampStep {
  policy: "none" | "quarantine" | "reject";
  pct: number;
  /** the DMARC record to publish for this step */
  record: string;
}

export interface Enforcement {
  domain: string;
  stage: Stage;
  /** the current pct (100 when absent); null without a policy */
  pct: number | null;
  /** t=y (DMARCbis testing: receivers apply one level less) */
  testing: boolean;
  nextStage: Stage | null;
  blockers: Blocker[];
  projection: { days: number; yoursUnauthenticated: number; notYours: number; messages: number };
  /** true when the next stage blocks none of your mail */
  ready: boolean;
  recommendation: { words: string; record: string | null; ramp: RampStep[] };
}

export interface EnforcementInput {
  domain: string;
  /** the DMARC status of the live record (src/lib/dns/dmarc.ts DmarcStatus) */
  dmarcStatus: string;
  dmarcRecord: string | null;
  days: number;
  /** every source of the period, explained */
  sources: SourceExplanation[];
  /** the report address for a new record */
  rua: string | null;
}

const NEXT: Record<Stage, Stage | null> = { missing: "none", none: "quarantine", quarantine: "reject", reject: null };

export function stageOf(status: string): Stage {
  return status === "none" || status === "quarantine" || status === "reject" ? status : "missing";
}

/** The record with p=, pct= and t= set (pct and t left out at 100 / off), other tags kept in order. */
export function withPolicy(record: string | null, policy: "none" | "quarantine" | "reject", pct: number, rua: string | null): string {
  const tags = record ? parseTagList(record).tags.filter((t) => t.name !== "v") : [];
  const kept = tags.filter((t) => !["p", "pct", "t"].includes(t.name)).map((t) => `${t.name}=${t.value}`);
  if (!tags.some((t) => t.name === "rua") && rua) kept.unshift(`rua=mailto:${rua.replace(/^mailto:/i, "")}`);
  const head = [`v=DMARC1`, `p=${policy}`];
  if (pct < 100) head.push(`pct=${pct}`, "t=y");
  return [...head, ...kept].join("; ");
}

export function assessEnforcement(input: EnforcementInput): Enforcement {
  const stage = stageOf(input.dmarcStatus);
  const tags = input.dmarcRecord && stage !== "missing" ? parseTagList(input.dmarcRecord).byName : new Map<string, string>();
  const pctTag = tags.get("pct");
  const pct = stage === "missing" ? null : pctTag !== undefined && /^\d+$/.test(pctTag) ? Math.min(100, Number(pctTag)) : 100;
  const testing = (tags.get("t") ?? "").toLowerCase() === "y";
  const nextStage = NEXT[stage];
  const messages = input.sources.reduce((s, x) => s + x.messages, 0);
  // moving to p=none changes nothing for the mail; every other step acts on failing mail
  const acts = nextStage !== "none";

  const groups = new Map<string, { rows: SourceExplanation[]; failing: number; total: number; passed: number }>();
  let yoursFailing = 0;
  let notYoursFailing = 0;
  for (const s of input.sources) {
    if (s.yours) yoursFailing += s.failing;
    else notYoursFailing += s.failing;
    if (!s.yours) continue;
    const g = groups.get(s.senderKey) ?? { rows: [], failing: 0, total: 0, passed: 0 };
    g.rows.push(s);
    g.failing += s.failing;
    g.total += s.messages;
    g.passed += s.passed;
    groups.set(s.senderKey, g);
  }
  const blockers: Blocker[] = !acts
    ? []
    : [...groups.values()]
        .filter((g) => g.failing > 0 && (g.passed / g.total) * 100 < BLOCKER_PASS_RATE)
        .map((g) => {
          const rows = g.rows.filter((r) => r.failing > 0).sort((a, b) => b.failing - a.failing || a.ip.localeCompare(b.ip));
          const first = rows[0]!;
          return { source: first.sender, senderKey: first.senderKey, service: first.service, mark: first.mark, ips: rows.map((r) => r.ip), messages: g.failing, totalMessages: g.total, fix: first.fix };
        })
        .sort((a, b) => b.messages - a.messages || a.source.localeCompare(b.source));
  const projection = { days: input.days, yoursUnauthenticated: acts ? yoursFailing : 0, notYours: acts ? notYoursFailing : 0, messages };
  const ready = blockers.length === 0;
  return { domain: input.domain, stage, pct, testing, nextStage, blockers, projection, ready, recommendation: recommend(input, stage, pct ?? 100, nextStage, blockers, messages) };
}

function recommend(input: EnforcementInput, stage: Stage, pct: number, next: Stage | null, blockers: Blocker[], messages: number): Enforcement["recommendation"] {
  const d = input.domain;
  const at = `_dmarc.${d}`;
  if (next === null) {
    if (pct < 100) return { words: `Raise pct to 100 (or remove pct=) at ${at}, so every failing message is rejected.`, record: withPolicy(input.dmarcRecord, "reject", 100, input.rua), ramp: [] };
    return blockers.length
      ? { words: `${d} is at p=reject: the blockers' mail is being rejected now. Fix them first; the policy stays.`, record: null, ramp: [] }
      : { words: `${d} is at p=reject: spoofed mail is refused. Keep watching the reports for new senders.`, record: null, ramp: [] };
  }
  if (next === "none") {
    return { words: `Publish a DMARC record at ${at} with p=none to start receiving reports; nothing changes for your mail.`, record: withPolicy(null, "none", 100, input.rua), ramp: [] };
  }
  const blocked = blockers.reduce((s, b) => s + b.messages, 0);
  const share = messages > 0 ? blocked / messages : 0;
  if (!blockers.length) {
    if (stage === "quarantine" && pct < 100) {
      return { words: `No mail of yours fails: raise pct to 100 for quarantine, then move to p=reject.`, record: withPolicy(input.dmarcRecord, "quarantine", 100, input.rua), ramp: [] };
    }
    return { words: `Ready: none of your mail would be ${next === "reject" ? "rejected" : "quarantined"}. Change the record at ${at} to p=${next}.`, record: withPolicy(input.dmarcRecord, next as "quarantine" | "reject", 100, input.rua), ramp: [] };
  }
  if (share <= RAMP_MAX_SHARE) {
    const policy = next as "quarantine" | "reject";
    const ramp = RAMP_PCTS.map((p) => ({ policy, pct: p, record: withPolicy(input.dmarcRecord, policy, p, input.rua) }));
    return {
      words: `Fix the blockers; their failing mail is ${Math.round(share * 1000) / 10}% of all mail, so you can start p=${policy} on a ramp meanwhile: pct=10, 25, 50, then 100, a week or two each, watching the reports. The steps below 100 also carry t=y, which DMARCbis receivers read instead of pct.`,
      record: ramp[0]!.record,
      ramp,
    };
  }
  return { words: `Fix the blockers first: ${Math.round(share * 1000) / 10}% of all mail comes from your own senders that fail DMARC and would be ${next === "reject" ? "rejected" : "quarantined"} at p=${next}.`, record: null, ramp: [] };
}
