/**
 * Domain statuses from the DNS checks: after a domain is added and on a schedule, each
 * domain's dmarcPolicy, spfStatus, dkimStatus and overallStatus (rule in src/lib/dns/overall.ts)
 * are computed and stored, with a history row whenever a record or status changes.
 */
import { desc, eq, isNull, lt, or } from "drizzle-orm";
import type { DB } from "../../db";
import { writeTransactionDb } from "../../db/transaction";
import { domainRecordHistory, domains } from "../../db/schema";
import type { Logger } from "../../log";
import { analyzeDomain, type DnsAnalysis } from "../dns/analyze";
import type { CachePolicy, DnsResolver } from "../dns/resolver";

export interface StatusDeps {
  db: DB;
  resolver: DnsResolver;
  now: () => Date;
  log?: Logger;
  /** DKIM selectors seen in the organisation's reports for this domain (filled once reports exist) */
  reportSelectors?: (orgId: string, domain: string) => string[];
  /** the organisation's DNS cache policy (Settings); the resolver's own when absent */
  cachePolicy?: (orgId: string) => CachePolicy;
}

type DomainRow = typeof domains.$inferSelect;

function dkimRecordOf(analysis: DnsAnalysis): string | null {
  const keys = analysis.dkim.details.keys;
  return keys.length ? keys.map((k) => `${k.selector}: ${k.record}`).join("\n") : null;
}

/**
 * Stores one analysis on the domain row, and a history row when anything differs from the
 * last one. One transaction: both or neither.
 */
export function storeDomainStatus(db: DB, domain: Pick<DomainRow, "id" | "orgId">, analysis: DnsAnalysis, at: Date): { changed: string[] } {
  const next = {
    dmarcRecord: analysis.dmarc.recordValue,
    spfRecord: analysis.spf.recordValue,
    dkimRecord: dkimRecordOf(analysis),
    dmarcPolicy: analysis.dmarc.status,
    spfStatus: analysis.spf.status,
    dkimStatus: analysis.dkim.status,
    overallStatus: analysis.overallStatus,
  };
  return writeTransactionDb(db, (tx) => {
    tx.update(domains)
      .set({ dmarcPolicy: next.dmarcPolicy, spfStatus: next.spfStatus, dkimStatus: next.dkimStatus, overallStatus: next.overallStatus, lastCheckedAt: at })
      .where(eq(domains.id, domain.id))
      .run();
    const previous = tx.select().from(domainRecordHistory).where(eq(domainRecordHistory.domainId, domain.id)).orderBy(desc(domainRecordHistory.checkedAt)).limit(1).get();
    const changed: string[] = [];
    if (previous) {
      if (previous.dmarcRecord !== next.dmarcRecord || previous.dmarcPolicy !== next.dmarcPolicy) changed.push("dmarc");
      if (previous.spfRecord !== next.spfRecord || previous.spfStatus !== next.spfStatus) changed.push("spf");
      if (previous.dkimRecord !== next.dkimRecord || previous.dkimStatus !== next.dkimStatus) changed.push("dkim");
      if (!changed.length && previous.overallStatus === next.overallStatus) return { changed };
    }
    tx.insert(domainRecordHistory).values({ orgId: domain.orgId, domainId: domain.id, checkedAt: at, ...next, changed: changed.join(",") }).run();
    return { changed: previous ? changed : ["dmarc", "spf", "dkim"] };
  });
}

/** Checks one domain now. Returns null when it no longer exists or DNS failed (statuses kept). */
export async function checkDomain(deps: StatusDeps, domainId: string): Promise<DnsAnalysis | null> {
  const row = deps.db.select().from(domains).where(eq(domains.id, domainId)).get();
  if (!row) return null;
  const resolver = deps.cachePolicy ? deps.resolver.withPolicy(deps.cachePolicy(row.orgId)) : deps.resolver;
  const analysis = await analyzeDomain(resolver, row.name, { reportSelectors: deps.reportSelectors?.(row.orgId, row.name), now: deps.now });
  if (analysis.incomplete) {
    deps.log?.warn("dns_check_incomplete", { domain: row.name });
    return null;
  }
  // the domain may have been deleted while DNS answered
  if (!deps.db.select({ id: domains.id }).from(domains).where(eq(domains.id, domainId)).get()) return null;
  const { changed } = storeDomainStatus(deps.db, row, analysis, deps.now());
  deps.log?.info("dns_checked", { domain: row.name, overall: analysis.overallStatus, changed: changed.join(",") });
  return analysis;
}

/** Checks every domain not checked within `maxAgeMinutes` (all of them with 0), a few at a time. */
export async function checkDueDomains(deps: StatusDeps, maxAgeMinutes: number, concurrency = 4): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - maxAgeMinutes * 60_000);
  const due = deps.db
    .select({ id: domains.id })
    .from(domains)
    .where(maxAgeMinutes > 0 ? or(isNull(domains.lastCheckedAt), lt(domains.lastCheckedAt, cutoff)) : undefined)
    .all();
  let next = 0;
  let checked = 0;
  const worker = async () => {
    while (next < due.length) {
      const { id } = due[next++]!;
      try {
        if (await checkDomain(deps, id)) checked++;
      } catch (error) {
        deps.log?.error("dns_check_failed", { domainId: id, error: String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  return checked;
}

/**
 * Re-checks domains every `intervalMinutes` (0: never). Wakes at least every 10 minutes so a
 * restart or a failed check does not wait a full interval; runs never overlap.
 */
export function startDomainCheckScheduler(deps: StatusDeps, intervalMinutes: number): { stop(): Promise<void> } {
  if (intervalMinutes <= 0) return { stop: async () => {} };
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    running = checkDueDomains(deps, intervalMinutes).finally(() => (running = null));
  };
  const first = setTimeout(run, 5_000);
  const timer = setInterval(run, Math.min(intervalMinutes, 10) * 60_000);
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}

/** The deps.onDomainAdded hook: check the new domain in the background. */
export function checkOnAdd(deps: StatusDeps): (domainId: string) => void {
  return (domainId) => {
    checkDomain(deps, domainId).catch((error) => deps.log?.error("dns_check_failed", { domainId, error: String(error) }));
  };
}

