/**
 * Domain statuses from the DNS checks: after a domain is added and on a schedule, each
 * domain's dmarcPolicy, spfStatus, dkimStatus and overallStatus (rule in src/lib/dns/overall.ts)
 * are computed and stored, with a history row whenever a record or status changes.
 */
import { dnsCheckDuration, dnsChecks } from "../metrics/registry";
import { desc, eq, isNull, lt, or } from "drizzle-orm";
import type { domains } from "../../db/schema";
import type { StoreCore } from "../../db/store";
import { claimLease } from "../../db/leases";
import { periodic } from "../../lib/periodic";
import type { Logger } from "../../log";
import { recordDnsCheck } from "../alerts/dns";
import type { RecordedEvent } from "../alerts/events";
import { analyzeDomain, isComplete, type CompleteAnalysis, type DnsAnalysis } from "../dns/analyze";
import type { ProbeOptions } from "../dns/probes";
import type { CachePolicy, DnsResolver } from "../dns/resolver";

/** What the checks run with (schedulers call these without an HTTP caller: every domain, any organisation). */
export interface StatusDeps {
  store: StoreCore;
  resolver: DnsResolver;
  /** the DNS checks' network probes (MTA-STS policy, BIMI logo, STARTTLS); absent: DNS only */
  probes?: ProbeOptions;
  now: () => Date;
  log?: Logger;
  /** DKIM selectors seen in the organisation's reports for this domain (filled once reports exist) */
  reportSelectors?: (orgId: string, domain: string) => Promise<string[]>;
  /** the organisation's DNS cache policy (Settings); the resolver's own when absent */
  cachePolicy?: (orgId: string) => CachePolicy | Promise<CachePolicy>;
  /** called after a check raised events (their deliveries are queued: sending may start now) */
  onEvents?: () => void;
}

type DomainRow = typeof domains.$inferSelect;

function dkimRecordOf(analysis: DnsAnalysis): string | null {
  const keys = analysis.dkim.details.keys;
  return keys.length ? keys.map((k) => `${k.selector}: ${k.record}`).join("\n") : null;
}

/**
 * Stores one analysis on the domain row, and a history row when anything differs from the
 * last one. One transaction: both or neither. Null when the domain no longer exists.
 */
export async function storeDomainStatus(
  { store }: Pick<StatusDeps, "store">,
  domain: Pick<DomainRow, "id" | "orgId">,
  analysis: CompleteAnalysis,
  at: Date,
): Promise<{ changed: string[] } | null> {
  const { domains, domainRecordHistory } = store.t;
  const next = {
    dmarcRecord: analysis.dmarc.recordValue,
    spfRecord: analysis.spf.recordValue,
    dkimRecord: dkimRecordOf(analysis),
    dmarcPolicy: analysis.dmarc.status,
    spfStatus: analysis.spf.status,
    dkimStatus: analysis.dkim.status,
    overallStatus: analysis.overallStatus,
  };
  return store.write(async (tx) => {
    const updated = await tx
      .update(domains)
      .set({ dmarcPolicy: next.dmarcPolicy, spfStatus: next.spfStatus, dkimStatus: next.dkimStatus, overallStatus: next.overallStatus, lastCheckedAt: at, checkFailedAt: null })
      .where(eq(domains.id, domain.id))
      .returning({ id: domains.id });
    if (!updated.length) return null;
    const [previous] = await tx
      .select()
      .from(domainRecordHistory)
      .where(eq(domainRecordHistory.domainId, domain.id))
      .orderBy(desc(domainRecordHistory.checkedAt))
      .limit(1);
    const changed: string[] = [];
    if (previous) {
      if (previous.dmarcRecord !== next.dmarcRecord || previous.dmarcPolicy !== next.dmarcPolicy) changed.push("dmarc");
      if (previous.spfRecord !== next.spfRecord || previous.spfStatus !== next.spfStatus) changed.push("spf");
      if (previous.dkimRecord !== next.dkimRecord || previous.dkimStatus !== next.dkimStatus) changed.push("dkim");
      if (!changed.length && previous.overallStatus === next.overallStatus) return { changed };
    }
    await tx.insert(domainRecordHistory).values({ orgId: domain.orgId, domainId: domain.id, checkedAt: at, ...next, changed: changed.join(",") });
    return { changed: previous ? changed : ["dmarc", "spf", "dkim"] };
  });
}

async function domainById(store: StoreCore, domainId: string): Promise<DomainRow | null> {
  const [row] = await store.db.select().from(store.t.domains).where(eq(store.t.domains.id, domainId)).limit(1);
  return row ?? null;
}

/** What one check found: the analysis, or why there is none, and the DNS events it raised. */
export type DomainCheck = { outcome: "checked"; analysis: DnsAnalysis; events: RecordedEvent[] } | { outcome: "gone" } | { outcome: "incomplete"; analysis: DnsAnalysis };

/**
 * Checks one domain now. The statuses, the DNS snapshot and the events the change raises (with
 * their deliveries) are stored in one write; an incomplete check (the DNS server did not answer)
 * keeps the last good statuses, raises nothing and only records when it failed (checkFailedAt).
 */
export async function runDomainCheck(deps: StatusDeps, domainId: string): Promise<DomainCheck> {
  const done = dnsCheckDuration.startTimer();
  try {
    const check = await runDomainCheckOnce(deps, domainId);
    dnsChecks.inc({ outcome: check.outcome });
    if (check.outcome !== "gone") done();
    return check;
  } catch (error) {
    dnsChecks.inc({ outcome: "error" });
    throw error;
  }
}

async function runDomainCheckOnce(deps: StatusDeps, domainId: string): Promise<DomainCheck> {
  const row = await domainById(deps.store, domainId);
  if (!row) return { outcome: "gone" };
  const resolver = deps.cachePolicy ? deps.resolver.withPolicy(await deps.cachePolicy(row.orgId)) : deps.resolver;
  const analysis = await analyzeDomain(resolver, row.name, { reportSelectors: await deps.reportSelectors?.(row.orgId, row.name), now: deps.now, probes: deps.probes });
  if (!isComplete(analysis)) {
    // the DNS server did not answer: no statuses from missing answers; the last good ones stay,
    // with their time, and the domain says its last check failed
    const { domains } = deps.store.t;
    await deps.store.write((tx) => tx.update(domains).set({ checkFailedAt: deps.now() }).where(eq(domains.id, row.id)));
    deps.log?.warn("dns_check_incomplete", { domain: row.name });
    return { outcome: "incomplete", analysis };
  }
  const at = deps.now();
  const result = await deps.store.write(async () => {
    const stored = await storeDomainStatus(deps, row, analysis, at);
    // the domain was deleted while DNS answered
    if (!stored) return null;
    return { changed: stored.changed, events: await recordDnsCheck(deps, row, analysis) };
  });
  if (!result) return { outcome: "gone" };
  deps.log?.info("dns_checked", { domain: row.name, overall: analysis.overallStatus, changed: result.changed.join(","), events: result.events.length });
  if (result.events.length) deps.onEvents?.();
  return { outcome: "checked", analysis, events: result.events };
}

/** Checks one domain now. Returns null when it no longer exists or DNS failed (statuses kept). */
export async function checkDomain(deps: StatusDeps, domainId: string): Promise<DnsAnalysis | null> {
  const check = await runDomainCheck(deps, domainId);
  return check.outcome === "checked" ? check.analysis : null;
}

/** Checks every domain not checked within `maxAgeMinutes` (all of them with 0), a few at a time. */
export async function checkDueDomains(deps: StatusDeps, maxAgeMinutes: number, concurrency = 4): Promise<number> {
  const cutoff = new Date(deps.now().getTime() - maxAgeMinutes * 60_000);
  const { domains } = deps.store.t;
  const due = await deps.store.db
    .select({ id: domains.id })
    .from(domains)
    .where(maxAgeMinutes > 0 ? or(isNull(domains.lastCheckedAt), lt(domains.lastCheckedAt, cutoff)) : undefined);
  let next = 0;
  let checked = 0;
  // Several app nodes may share the database: a domain is checked by the node that claims its
  // lease, which lasts (almost) the interval, so it is checked once per interval in the cluster.
  const leaseSeconds = Math.max(60, maxAgeMinutes * 60 - 60);
  const worker = async () => {
    while (next < due.length) {
      const { id } = due[next++]!;
      try {
        if (maxAgeMinutes > 0 && !(await claimLease(deps.store, `dns-check:${id}`, leaseSeconds, deps.now()))) continue;
        if (await checkDomain(deps, id)) checked++;
      } catch (error) {
        deps.log?.error("dns_check_failed", { domainId: id, error: String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker));
  if (due.length) deps.log?.info("dns_checks_done", { due: due.length, checked });
  return checked;
}

/**
 * Re-checks domains every `intervalMinutes` (0: never). Wakes at least every 10 minutes so a
 * restart or a failed check does not wait a full interval; runs never overlap.
 */
export function startDomainCheckScheduler(deps: StatusDeps, intervalMinutes: number): { stop(): Promise<void> } {
  if (intervalMinutes <= 0) return { stop: async () => {} };
  return periodic({
    everyMs: Math.min(intervalMinutes, 10) * 60_000,
    firstAfterMs: 5_000,
    run: () => checkDueDomains(deps, intervalMinutes),
    onError: (error) => deps.log?.error("dns_check_failed", { error: String(error) }),
  });
}

/** How long a node that checks a newly added domain holds its check lease. */
const NEW_DOMAIN_LEASE_SECONDS = 300;

/** The deps.onDomainAdded hook: check the new domain in the background. */
export function checkOnAdd(deps: StatusDeps): (domainId: string) => void {
  return (domainId) => {
    // the lease keeps another node's scheduler from checking the new domain at the same moment
    claimLease(deps.store, `dns-check:${domainId}`, NEW_DOMAIN_LEASE_SECONDS, deps.now())
      .then((claimed) => (claimed ? checkDomain(deps, domainId) : null))
      .catch((error) => deps.log?.error("dns_check_failed", { domainId, error: String(error) }));
  };
}

