/**
 * The road to p=reject for one domain of the organisation: its sources of the last 30 days
 * (the reports feature's verb) each explained against the domain's live DNS, the readiness
 * that follows (GET /api/domains/:id/enforcement) and the SPF terms that authorised mail
 * (part of GET /api/domains/:id/sources). The rules are pure functions in src/lib/readiness.
 */
import { and, eq } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import { parseDkimKey } from "../../lib/dns/dkim";
import type { SpfNode } from "../../lib/dns/spf-tree";
import { isTemporaryFailure } from "../../lib/dns/types";
import { assessEnforcement, type Enforcement } from "../../lib/readiness/enforcement";
import { explainSource, orgDomainOf, type AlignmentMode, type PublishedKey, type SourceExplanation } from "../../lib/readiness/explain";
import { matchSpf, memoLookups, type SpfMatch } from "../../lib/readiness/spf-match";
import { spfUsage, type SpfUsage } from "../../lib/readiness/spf-usage";
import { analyzeDomain, type DnsAnalysis } from "../dns/analyze";
import { reportDestination } from "../mailin/destination";
import { proposedRua, reportPath } from "../../lib/report-path";
import { domainSourcesBetween } from "../reports/domain-sources";
import { senderMarks } from "../reports/sender-marks";
import { dnsCachePolicy } from "../settings/service";

/** The period readiness looks at, in days. */
export const READINESS_DAYS = 30;
const DAY = 86_400;

export interface EnforcementView extends Enforcement {
  /** why the live DNS could not be used (statuses then come from the last check), or null */
  analysisError: string | null;
}

export interface DomainSourcesView {
  domain: string;
  days: number;
  sources: SourceExplanation[];
  spfUsage: SpfUsage;
  analysisError: string | null;
}

interface Readiness {
  enforcement: EnforcementView;
  sources: DomainSourcesView;
}

async function ownDomain(ctx: OrgContext, id: string) {
  const { domains } = ctx.store.t;
  const [row] = await ctx.store.db.select({ id: domains.id, name: domains.name, dmarcPolicy: domains.dmarcPolicy }).from(domains).where(and(eq(domains.id, id), eq(domains.orgId, ctx.actor.orgId))).limit(1);
  if (!row) throw new NotFoundError("No such domain in this organization.");
  return row;
}

const UNKNOWN_MATCH: SpfMatch = { result: "unknown", mechanism: null, domain: null, topTerm: null, path: [], reason: "The live SPF record could not be read." };

/** The address the domain's reports should go to on this deployment (src/lib/report-path.ts), as tasks and the onboarding checklist say. */
async function ruaOf(ctx: OrgContext, domain: string): Promise<string | null> {
  try {
    return proposedRua(reportPath(domain, await reportDestination(ctx)));
  } catch {
    return null;
  }
}

/** Everything readiness knows about one domain, computed once per request. */
export async function domainReadiness(ctx: OrgContext, id: string): Promise<Readiness> {
  const row = await ownDomain(ctx, id);
  const domain = row.name.toLowerCase();
  // the last READINESS_DAYS UTC days, today included (the daily roll-ups' day rule)
  const toDay = Math.floor(ctx.now().getTime() / 1000 / DAY);
  const [figures, marks, rua] = await Promise.all([domainSourcesBetween(ctx, row.id, { fromDay: toDay - READINESS_DAYS + 1, toDay }), senderMarks(ctx), ruaOf(ctx, row.name)]);

  let analysis: DnsAnalysis | null = null;
  let analysisError: string | null = null;
  const keys = new Map<string, PublishedKey>();
  const matches = new Map<string, SpfMatch>();
  if (!ctx.resolver) analysisError = "DNS lookups are not available on this server; the stage comes from the last check and SPF and DKIM keys are not checked.";
  else {
    try {
      const resolver = ctx.resolver.withPolicy(await dnsCachePolicy(ctx, ctx.actor.orgId));
      const selectors = [...new Set(figures.flatMap((f) => f.dkim.filter((d) => d.domain === domain && d.selector).map((d) => d.selector!.toLowerCase())))];
      analysis = await analyzeDomain(resolver, domain, { reportSelectors: selectors, now: ctx.now });
      if (analysis.incomplete) analysisError = "Could not check (DNS server did not answer): what was not answered comes from the last check. Try again in a minute.";
      // the keys of signatures within the domain's organisational domain, as published now
      const wanted = new Set<string>();
      for (const f of figures) for (const d of f.dkim) if (d.selector && orgDomainOf(d.domain) === orgDomainOf(domain)) wanted.add(`${d.selector.toLowerCase()}._domainkey.${d.domain}`);
      await Promise.all(
        [...wanted].map(async (name) => {
          const txt = await resolver.txt(name);
          if (isTemporaryFailure(txt.status)) return void keys.set(name, { status: "unknown" });
          const record = txt.records.map((r) => r.text).find((t) => /(^|;)\s*(v=DKIM1|p=|k=)/i.test(t));
          if (!record) return void keys.set(name, { status: "missing" });
          const key = parseDkimKey(name.split("._domainkey.")[0]!, record);
          keys.set(name, { status: key.status, bits: key.bits });
        }),
      );
      const tree = (analysis.spf.details.tree as SpfNode | null) ?? null;
      const lookups = memoLookups(resolver);
      await Promise.all(figures.map(async (f) => void matches.set(f.ip, await matchSpf(f.ip, tree, lookups))));
    } catch (error) {
      ctx.log.warn("domain_readiness_dns_failed", { domain, error: error instanceof Error ? error.message : String(error) });
      analysis = null;
      analysisError = "The DNS servers did not answer; the stage comes from the last check and SPF and DKIM keys are not checked. Try again in a minute.";
    }
  }

  const tags = analysis?.dmarc.details.tags ?? {};
  const mode = (v: string | undefined): AlignmentMode => (v?.toLowerCase() === "s" ? "s" : "r");
  const sources = figures.map((f) =>
    explainSource(
      { ...f, mark: marks.get(f.senderKey) ?? null },
      {
        domain,
        adkim: mode(tags.adkim),
        aspf: mode(tags.aspf),
        spf: matches.get(f.ip) ?? UNKNOWN_MATCH,
        key: (selector, d) => keys.get(`${selector.toLowerCase()}._domainkey.${d.toLowerCase()}`) ?? { status: "unknown" },
      },
    ),
  );
  const enforcement = assessEnforcement({
    domain,
    // a DMARC lookup the DNS server did not answer is no stage: the last check's stands
    dmarcStatus: analysis && analysis.dmarc.status !== "unchecked" ? analysis.dmarc.status : (row.dmarcPolicy ?? "missing"),
    dmarcRecord: analysis?.dmarc.recordValue ?? null,
    days: READINESS_DAYS,
    sources,
    rua,
  });
  const tree = (analysis?.spf.details.tree as SpfNode | null) ?? null;
  const usage = spfUsage(tree, figures.map((f) => ({ ip: f.ip, messages: f.messages, match: matches.get(f.ip) ?? UNKNOWN_MATCH })), READINESS_DAYS);
  if (!analysis) usage.words = analysisError ?? usage.words;
  return {
    enforcement: { ...enforcement, analysisError },
    sources: { domain, days: READINESS_DAYS, sources, spfUsage: usage, analysisError },
  };
}

export async function domainEnforcement(ctx: OrgContext, id: string): Promise<EnforcementView> {
  return (await domainReadiness(ctx, id)).enforcement;
}

export async function domainSources(ctx: OrgContext, id: string): Promise<DomainSourcesView> {
  return (await domainReadiness(ctx, id)).sources;
}
