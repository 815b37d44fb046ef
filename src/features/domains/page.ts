/**
 * A domain's own page (`/app/domains/:id`): the domain with its stored statuses, its current
 * records analysed (DMARC, SPF with its include tree and lookup count, DKIM keys of the
 * selectors seen in reports), and its DNS change history from the rows the checks write.
 * Another organisation's domain is not found.
 */
import { and, desc, eq, lt } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import { analyzeDomain, type DnsAnalysis } from "../dns/analyze";
import { selectorsSeen } from "../reports/service";
import { dnsCachePolicy } from "../settings/service";
import type { DomainView } from "./contract";
import { domainView } from "./service";

export interface DomainOverview {
  domain: DomainView;
  /** the records as DNS answers them now (through the organisation's DNS cache); null when DNS could not be asked */
  analysis: DnsAnalysis | null;
  /** why there is no analysis, in words a user can act on */
  analysisError: string | null;
  /** DKIM selectors seen in the organisation's reports for this domain */
  selectorsSeen: string[];
}

export type HistoryRecord = "dmarc" | "spf" | "dkim";

/** One record's change between two checks. */
export interface HistoryChange {
  record: HistoryRecord;
  before: string | null;
  after: string | null;
  statusBefore: string | null;
  statusAfter: string;
}

/** One check that found something different from the check before it. */
export interface HistoryEntry {
  id: string;
  checkedAt: string;
  /** true for the domain's first check (everything is new) */
  first: boolean;
  overallBefore: string | null;
  overallAfter: string;
  changes: HistoryChange[];
}

/** GET /api/domains/:id/history: newest first; `nextBefore` pages on (null on the last page). */
export interface DomainHistory {
  items: HistoryEntry[];
  nextBefore: string | null;
}

export const MAX_HISTORY = 200;

async function ownDomain(ctx: OrgContext, id: string) {
  const { domains } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(domains).where(and(eq(domains.id, id), eq(domains.orgId, ctx.actor.orgId))).limit(1);
  if (!row) throw new NotFoundError("No such domain in this organization.");
  return row;
}

/** GET /api/domains/:id: the stored statuses and the records analysed now. */
export async function domainOverview(ctx: OrgContext, id: string): Promise<DomainOverview> {
  const row = await ownDomain(ctx, id);
  const seen = await selectorsSeen(ctx, row.orgId, row.name, { now: ctx.now() });
  if (!ctx.resolver) return { domain: domainView(row), analysis: null, analysisError: "DNS lookups are not available on this server.", selectorsSeen: seen };
  try {
    const resolver = ctx.resolver.withPolicy(await dnsCachePolicy(ctx, row.orgId));
    const analysis = await analyzeDomain(resolver, row.name, { reportSelectors: seen, now: ctx.now, probes: ctx.probes });
    return { domain: domainView(row), analysis, analysisError: analysis.incomplete ? "Could not check (DNS server did not answer): the records marked so are unknown, not missing. Try again in a minute." : null, selectorsSeen: seen };
  } catch (error) {
    ctx.log.warn("domain_overview_dns_failed", { domain: row.name, error: error instanceof Error ? error.message : String(error) });
    return { domain: domainView(row), analysis: null, analysisError: "The DNS servers did not answer. Try again in a minute.", selectorsSeen: seen };
  }
}

const RECORDS: { record: HistoryRecord; value: "dmarcRecord" | "spfRecord" | "dkimRecord"; status: "dmarcPolicy" | "spfStatus" | "dkimStatus" }[] = [
  { record: "dmarc", value: "dmarcRecord", status: "dmarcPolicy" },
  { record: "spf", value: "spfRecord", status: "spfStatus" },
  { record: "dkim", value: "dkimRecord", status: "dkimStatus" },
];

/**
 * GET /api/domains/:id/history: the checks that changed a record or a status, newest first,
 * each with what changed (old → new value, status before → after). `before` (an ISO time)
 * continues after a page's last entry.
 */
export async function domainHistory(ctx: OrgContext, id: string, options: { limit: number; before?: Date }): Promise<DomainHistory> {
  const row = await ownDomain(ctx, id);
  const h = ctx.store.t.domainRecordHistory;
  // one row more than the page: the row before the page's last entry, to compare it with
  const rows = await ctx.store.db
    .select()
    .from(h)
    .where(and(eq(h.domainId, row.id), options.before ? lt(h.checkedAt, options.before) : undefined))
    .orderBy(desc(h.checkedAt), desc(h.id))
    .limit(options.limit + 1);
  const page = rows.slice(0, options.limit);
  const items = page.map((current, i): HistoryEntry => {
    const previous = rows[i + 1] ?? null;
    const changes: HistoryChange[] = [];
    for (const r of RECORDS) {
      const before = previous ? previous[r.value] : null;
      const statusBefore = previous ? previous[r.status] : null;
      if (previous && before === current[r.value] && statusBefore === current[r.status]) continue;
      changes.push({ record: r.record, before, after: current[r.value], statusBefore, statusAfter: current[r.status] });
    }
    return { id: current.id, checkedAt: current.checkedAt.toISOString(), first: !previous, overallBefore: previous?.overallStatus ?? null, overallAfter: current.overallStatus, changes };
  });
  const more = rows.length > options.limit;
  return { items, nextBefore: more && page.length ? page[page.length - 1]!.checkedAt.toISOString() : null };
}
