/**
 * Figures over the organisation's stored reports that other features show (the dashboard's
 * numbers, tasks and threats). Times are epoch seconds in both stores; sums and counts are
 * read through Number() because PostgreSQL hands 64-bit results back as strings.
 */
import { sql } from "drizzle-orm";
import { distinctList, smaller } from "../../db/sql";
import type { ServiceContext } from "../../http/access";
import { senderKeyOf, senderOf } from "../../lib/senders";
import type { FailingSender } from "../../lib/tasks";

type Ctx = Pick<ServiceContext, "store">;
const secs = (d: Date) => Math.floor(d.getTime() / 1000);
const date = (s: number | string) => new Date(Number(s) * 1000);

/** Per domain, when the last aggregate report processed by `until` says mail was seen (its period end, or when it arrived if earlier). */
export async function lastReportByDomain(ctx: Ctx, orgId: string, until: Date): Promise<Map<string, Date>> {
  const rows = await ctx.store.rows<{ domainId: string; last: number | string }>(sql`
    SELECT domain_id AS "domainId", MAX(${smaller(sql`date_end`, sql`processed_at`)}) AS "last"
    FROM aggregate_reports WHERE org_id = ${orgId} AND processed_at <= ${secs(until)} GROUP BY domain_id`);
  return new Map(rows.map((r) => [r.domainId, date(r.last)]));
}

/**
 * DMARC-failing mail per domain and sender, from records whose period began in (from, to] and
 * reported by `to`: per sending service, and for unrecognised mail per base domain, else per IP
 * (the Senders view's grouping, so each row can carry the user's mark on that sender).
 */
export async function failingMailByService(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<FailingSender[]> {
  const baseDomain = sql`(CASE WHEN rec.service IS NULL THEN lower(rec.base_domain) END)`;
  const ip = sql`(CASE WHEN rec.service IS NULL AND rec.base_domain IS NULL THEN rec.source_ip END)`;
  const rows = await ctx.store.rows<Record<"domainId" | "service" | "baseDomain" | "ip" | "sources" | "messages" | "delivered" | "firstSeen", string | number | null>>(sql`
    SELECT r.domain_id AS "domainId", rec.service AS "service", ${baseDomain} AS "baseDomain", ${ip} AS "ip", COUNT(DISTINCT rec.source_ip) AS "sources", SUM(rec.message_count) AS "messages",
           SUM(CASE WHEN rec.disposition = 'none' THEN rec.message_count ELSE 0 END) AS "delivered", MIN(rec.date_begin) AS "firstSeen"
    FROM aggregate_records rec JOIN aggregate_reports r ON r.id = rec.report_id
    WHERE rec.org_id = ${orgId} AND r.org_id = ${orgId} AND rec.dmarc_pass = ${false} AND rec.date_begin > ${secs(from)} AND rec.date_begin <= ${secs(to)} AND r.processed_at <= ${secs(to)}
    GROUP BY r.domain_id, rec.service, ${baseDomain}, ${ip}`);
  return rows.map((r) => {
    const service = r.service === null ? null : String(r.service);
    const sender = senderOf({ service, baseDomain: r.baseDomain === null ? null : String(r.baseDomain), sourceIp: String(r.ip ?? "") });
    return {
      domainId: String(r.domainId),
      service,
      sender: sender.sender,
      senderKey: senderKeyOf(sender),
      sources: Number(r.sources),
      messages: Number(r.messages),
      delivered: Number(r.delivered),
      firstSeenAt: date(r.firstSeen!),
    };
  });
}

/** Messages and DMARC-passing messages per domain, from reports whose period began in (from, to] and processed by `to`. */
export async function trafficByDomain(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<{ domainId: string; messages: number; passing: number }[]> {
  const rows = await ctx.store.rows<{ domainId: string; messages: number | string; passing: number | string }>(sql`
    SELECT domain_id AS "domainId", SUM(message_count) AS "messages", SUM(pass_count) AS "passing"
    FROM aggregate_reports WHERE org_id = ${orgId} AND date_begin > ${secs(from)} AND date_begin <= ${secs(to)} AND processed_at <= ${secs(to)} GROUP BY domain_id`);
  return rows.map((r) => ({ domainId: r.domainId, messages: Number(r.messages), passing: Number(r.passing) }));
}

/** Aggregate, failure and TLS reports processed in (from, to]. */
export async function reportsProcessedBetween(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<number> {
  const f = secs(from);
  const t = secs(to);
  const [row] = await ctx.store.rows<{ n: number | string }>(sql`
    SELECT (SELECT COUNT(*) FROM aggregate_reports WHERE org_id = ${orgId} AND processed_at > ${f} AND processed_at <= ${t})
         + (SELECT COUNT(*) FROM failure_reports WHERE org_id = ${orgId} AND processed_at > ${f} AND processed_at <= ${t})
         + (SELECT COUNT(*) FROM tls_reports WHERE org_id = ${orgId} AND processed_at > ${f} AND processed_at <= ${t}) AS "n"`);
  return Number(row?.n ?? 0);
}

/** Messages and DMARC-passing messages of the aggregate reports processed in (from, to]. */
export async function messagesProcessedBetween(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<{ messages: number; passing: number }> {
  const [row] = await ctx.store.rows<{ messages: number | string; passing: number | string }>(sql`
    SELECT COALESCE(SUM(message_count), 0) AS "messages", COALESCE(SUM(pass_count), 0) AS "passing"
    FROM aggregate_reports WHERE org_id = ${orgId} AND processed_at > ${secs(from)} AND processed_at <= ${secs(to)}`);
  return { messages: Number(row?.messages ?? 0), passing: Number(row?.passing ?? 0) };
}

export interface FailingSource {
  ip: string;
  attempts: number;
  delivered: number;
  country: string | null;
  city: string | null;
  ptr: string | null;
  service: string | null;
  /** the base domain of its reverse DNS name, when it has one */
  baseDomain: string | null;
  lastSeenAt: Date;
  /** policy domains the failing mail claimed, sorted */
  domains: string[];
}

/**
 * Source IPs whose mail failed DMARC, most attempts first, at most `limit`: records of reports
 * whose period began by `now` and that were processed by `now`, whose period reaches past
 * `windowStart`, or that arrived after `windowStart` about a period ending after `lateSince`.
 */
export async function failingSources(ctx: Ctx, orgId: string, opts: { now: Date; windowStart: Date; lateSince: Date; limit: number }): Promise<FailingSource[]> {
  const t = secs(opts.now);
  const w = secs(opts.windowStart);
  const rows = await ctx.store.rows<Record<"ip" | "attempts" | "delivered" | "country" | "city" | "ptr" | "service" | "baseDomain" | "lastSeen" | "domains", string | number | null>>(sql`
    SELECT rec.source_ip AS "ip", SUM(rec.message_count) AS "attempts",
           SUM(CASE WHEN rec.disposition = 'none' THEN rec.message_count ELSE 0 END) AS "delivered",
           MAX(rec.country) AS "country", MAX(rec.city) AS "city", MAX(rec.ptr) AS "ptr", MAX(rec.service) AS "service", MAX(rec.base_domain) AS "baseDomain",
           MAX(${smaller(sql`r.date_end`, sql`r.processed_at`)}) AS "lastSeen", ${distinctList(ctx.store.dialect, sql`r.policy_domain`)} AS "domains"
    FROM aggregate_records rec JOIN aggregate_reports r ON r.id = rec.report_id
    WHERE rec.org_id = ${orgId} AND r.org_id = ${orgId} AND rec.dmarc_pass = ${false} AND r.date_begin <= ${t} AND r.processed_at <= ${t}
      AND (r.date_end > ${w} OR (r.processed_at > ${w} AND r.date_end > ${secs(opts.lateSince)}))
    GROUP BY rec.source_ip ORDER BY "attempts" DESC, rec.source_ip LIMIT ${opts.limit}`);
  const text = (v: string | number | null) => (v === null ? null : String(v));
  return rows.map((r) => ({
    ip: String(r.ip),
    attempts: Number(r.attempts),
    delivered: Number(r.delivered),
    country: text(r.country),
    city: text(r.city),
    ptr: text(r.ptr),
    service: text(r.service),
    baseDomain: text(r.baseDomain),
    lastSeenAt: date(r.lastSeen!),
    domains: r.domains ? String(r.domains).split(",").sort() : [],
  }));
}
