/**
 * How dangerous one source IP is, from the DMARC-failing mail it sent as the organisation's
 * domains in the last 24 hours (the Threat list of SPEC §2). The rule, in words:
 *
 *   delivered = failing messages the receivers still delivered (disposition "none": the
 *               policy was p=none, pct<100, or the receiver overrode it) — these reached inboxes.
 *   high   = 100 or more failing messages, or 20 or more of them delivered;
 *   medium = 10 or more failing messages, or any of them delivered;
 *   low    = a handful of failing messages, all quarantined or rejected.
 *
 * A source whose reverse DNS names a known sending service (Google, Microsoft, SendGrid, …)
 * is one level lower: such failures are most often your own service not yet authenticated,
 * not an attacker — they still show, because they fail until fixed.
 *
 * The user's mark on the sender (src/lib/senders.ts) overrides that guess: a source of a
 * sender marked "not ours" gets no such discount and is at least medium (it is spoofing);
 * a source of an approved sender is not a threat at all (the caller leaves it out: its
 * failures are a set-up task).
 */
import type { SenderMark } from "./senders";

export type ThreatLevel = "high" | "medium" | "low";

export const HIGH_ATTEMPTS = 100;
export const HIGH_DELIVERED = 20;
export const MEDIUM_ATTEMPTS = 10;

export interface SourceFailures {
  /** DMARC-failing messages from the source (sum of record counts) */
  attempts: number;
  /** of which the receivers delivered anyway (disposition none) */
  delivered: number;
  /** the sending service recognised from the source's reverse DNS, if any */
  knownService?: string | null;
  /** the user's mark on the source's sender, if any */
  mark?: SenderMark | null;
}

const LOWER: Record<ThreatLevel, ThreatLevel> = { high: "medium", medium: "low", low: "low" };

export function threatLevel({ attempts, delivered, knownService, mark }: SourceFailures): ThreatLevel {
  let level: ThreatLevel;
  if (attempts >= HIGH_ATTEMPTS || delivered >= HIGH_DELIVERED) level = "high";
  else if (attempts >= MEDIUM_ATTEMPTS || delivered > 0) level = "medium";
  else level = "low";
  if (mark === "not_ours") return level === "low" ? "medium" : level;
  return knownService ? LOWER[level] : level;
}

const RANK: Record<ThreatLevel, number> = { low: 1, medium: 2, high: 3 };
export const threatRank = (level: ThreatLevel) => RANK[level];
