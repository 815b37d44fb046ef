/**
 * One domain's sending IPs over a period, for its readiness and explain-and-fix views (the
 * domains feature asks for them): per IP the messages, DMARC passes and aligned counts with its
 * service and sender key, and the DKIM and SPF results receivers reported for it (d=, s=,
 * result; SPF domain, result) with their messages. Reads the records of the period on the
 * (org_id, date_begin) index, their reports by id and their auth results by record id.
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
type AuthRow = { ip: string; method: string; domain: string; selector: string | null; result: string; messages: number | string };

/** The domain's sources whose records began in [from, to] (epoch seconds), most mail first, at most MAX_DOMAIN_SOURCES. */
export async function domainSourcesBetween(ctx: OrgContext, domainId: string, range: { from: number; to: number }): Promise<DomainSource[]> {
  const orgId = ctx.actor.orgId;
  const scope = sql`rec.org_id = ${orgId} AND r.org_id = ${orgId} AND r.domain_id = ${domainId} AND rec.date_begin >= ${range.from} AND rec.date_begin <= ${range.to}`;
  const sums = await ctx.store.rows<SumRow>(sql`
    SELECT rec.source_ip AS "ip", rec.service AS "service", rec.base_domain AS "baseDomain",
           SUM(rec.message_count) AS "messages",
           SUM(CASE WHEN rec.dmarc_pass = ${true} THEN rec.message_count ELSE 0 END) AS "passed",
           SUM(CASE WHEN rec.spf_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS "spfAligned",
           SUM(CASE WHEN rec.dkim_aligned = 'pass' THEN rec.message_count ELSE 0 END) AS "dkimAligned"
    FROM aggregate_records rec JOIN aggregate_reports r ON r.id = rec.report_id
    WHERE ${scope}
    GROUP BY rec.source_ip, rec.service, rec.base_domain`);
  // rows of one IP differ only while its reverse DNS is being looked up: the named one wins
  const byIp = new Map<string, DomainSource>();
  for (const r of sums) {
    const cur = byIp.get(r.ip);
    const service = cur?.service ?? r.service ?? null;
    const baseDomain = cur?.baseDomain ?? r.baseDomain ?? null;
    const row = { sourceIp: r.ip, service, baseDomain };
    byIp.set(r.ip, {
      ip: r.ip,
      service,
      baseDomain,
      sender: senderOf(row).sender,
      senderKey: senderKeyOfRow(row),
      messages: (cur?.messages ?? 0) + Number(r.messages),
      passed: (cur?.passed ?? 0) + Number(r.passed),
      spfAligned: (cur?.spfAligned ?? 0) + Number(r.spfAligned),
      dkimAligned: (cur?.dkimAligned ?? 0) + Number(r.dkimAligned),
      dkim: [],
      spf: [],
    });
  }
  const top = [...byIp.values()].sort((a, b) => b.messages - a.messages || a.ip.localeCompare(b.ip)).slice(0, MAX_DOMAIN_SOURCES);
  const wanted = new Map(top.map((s) => [s.ip, s]));
  const auth = await ctx.store.rows<AuthRow>(sql`
    SELECT rec.source_ip AS "ip", a.method AS "method", lower(a.domain) AS "domain", a.selector AS "selector", a.result AS "result", SUM(rec.message_count) AS "messages"
    FROM aggregate_records rec
      JOIN aggregate_reports r ON r.id = rec.report_id
      JOIN aggregate_auth_results a ON a.record_id = rec.id AND a.org_id = rec.org_id
    WHERE ${scope}
    GROUP BY rec.source_ip, a.method, lower(a.domain), a.selector, a.result`);
  for (const a of auth) {
    const s = wanted.get(a.ip);
    if (!s) continue;
    const messages = Number(a.messages);
    if (a.method === "dkim") s.dkim.push({ domain: a.domain, selector: a.selector, result: a.result, messages });
    else if (a.method === "spf") s.spf.push({ domain: a.domain, result: a.result, messages });
  }
  return top;
}
