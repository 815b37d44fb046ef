/**
 * One domain's sending IPs over a period, for its readiness and explain-and-fix views (the
 * domains feature asks for them): per IP the messages, DMARC passes and aligned counts with its
 * service and sender key, and the DKIM and SPF results receivers reported for it (d=, s=,
 * result; SPF domain, result) with their messages. Reads the daily roll-ups, never the records:
 * the domain's days of daily_source_stats summed per IP (the most mail first, at most
 * MAX_DOMAIN_SOURCES, named from source_names), then those IPs' days of daily_auth_stats on its
 * primary key (docs/rollups.md).
 */
import { sql } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { senderKeyOfRow, senderOf } from "../../lib/senders";

/** Sources read per domain at most (the most mail first). */
export const MAX_DOMAIN_SOURCES = 200;

export interface DomainSource {
  ip: string;
  service: string | null;
  baseDomain: string | null;
  sender: string;
  senderKey: string;
  messages: number;
  passed: number;
  spfAligned: number;
  dkimAligned: number;
  dkim: { domain: string; selector: string | null; result: string; messages: number }[];
  spf: { domain: string; result: string; messages: number }[];
}

type SumRow = { ip: string; service: string | null; baseDomain: string | null; messages: number | string; passed: number | string; spfAligned: number | string; dkimAligned: number | string };
type AuthRow = { ip: string; method: string; domain: string; selector: string; result: string; messages: number | string };

/**
 * The domain's sources of the UTC days `fromDay`…`toDay` (the roll-up day is the day a report's
 * period begins), most mail first, at most MAX_DOMAIN_SOURCES.
 */
export async function domainSourcesBetween(ctx: OrgContext, domainId: string, range: { fromDay: number; toDay: number }): Promise<DomainSource[]> {
  const orgId = ctx.actor.orgId;
  const sums = await ctx.store.rows<SumRow>(sql`
    SELECT g.source_ip AS "ip", n.service AS "service", n.base_domain AS "baseDomain", g.messages AS "messages", g.passed AS "passed",
           g.spf_aligned AS "spfAligned", g.dkim_aligned AS "dkimAligned"
    FROM (SELECT s.source_ip, SUM(s.messages) AS messages, SUM(s.passed) AS passed, SUM(s.spf_aligned) AS spf_aligned, SUM(s.dkim_aligned) AS dkim_aligned
          FROM daily_source_stats s
          WHERE s.org_id = ${orgId} AND s.domain_id = ${domainId} AND s.day >= ${range.fromDay} AND s.day <= ${range.toDay}
          GROUP BY s.source_ip ORDER BY messages DESC, s.source_ip LIMIT ${MAX_DOMAIN_SOURCES}) g
    LEFT JOIN source_names n ON n.org_id = ${orgId} AND n.source_ip = g.source_ip`);
  const top: DomainSource[] = sums
    .map((r) => {
      const row = { sourceIp: r.ip, service: r.service ?? null, baseDomain: r.baseDomain ?? null };
      return {
        ip: r.ip,
        service: row.service,
        baseDomain: row.baseDomain,
        sender: senderOf(row).sender,
        senderKey: senderKeyOfRow(row),
        messages: Number(r.messages),
        passed: Number(r.passed),
        spfAligned: Number(r.spfAligned),
        dkimAligned: Number(r.dkimAligned),
        dkim: [],
        spf: [],
      };
    })
    .sort((a, b) => b.messages - a.messages || a.ip.localeCompare(b.ip));
  if (!top.length) return top;
  const wanted = new Map(top.map((s) => [s.ip, s]));
  const auth = await ctx.store.rows<AuthRow>(sql`
    SELECT a.source_ip AS "ip", a.method AS "method", a.auth_domain AS "domain", a.selector AS "selector", a.result AS "result", SUM(a.messages) AS "messages"
    FROM daily_auth_stats a
    WHERE a.org_id = ${orgId} AND a.domain_id = ${domainId} AND a.source_ip IN (${sql.join([...wanted.keys()].map((ip) => sql`${ip}`), sql`, `)})
      AND a.day >= ${range.fromDay} AND a.day <= ${range.toDay}
    GROUP BY a.source_ip, a.method, a.auth_domain, a.selector, a.result
    ORDER BY a.source_ip, a.method, a.auth_domain, a.selector, a.result`);
  for (const a of auth) {
    const s = wanted.get(a.ip);
    if (!s) continue;
    const messages = Number(a.messages);
    if (a.method === "dkim") s.dkim.push({ domain: a.domain, selector: a.selector || null, result: a.result, messages });
    else if (a.method === "spf") s.spf.push({ domain: a.domain, result: a.result, messages });
  }
  return top;
}
