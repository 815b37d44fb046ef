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

/** UTC day (days since 1970-01-01) of a moment. */
const dayOf = (d: Date) => Math.floor(secs(d) / 86_400);

/**
 * DMARC-failing mail per domain and sender, from the daily sender roll-ups of the UTC days
 * after `from`'s day up to `to`'s (the roll-up day is the day a report's period begins): per
 * sending service, and for unrecognised mail per base domain, else per IP (the Senders view's
 * grouping, so each row can carry the user's mark on that sender). The roll-ups are summed per
 * domain and IP first, then named from source_names. IPs without a name and not in
 * `markedIps` (the IPs the user marked one by one) come back as one unrecognised entry per
 * domain (their IPs counted in `sources`): the tasks only add those up.
 */
export async function failingMailByService(ctx: Ctx, orgId: string, from: Date, to: Date, markedIps: readonly string[] = []): Promise<FailingSender[]> {
  const individual = markedIps.length ? sql`OR g.source_ip IN (${sql.join(markedIps.map((ip) => sql`${ip}`), sql`, `)})` : sql``;
  const rows = await ctx.store.rows<Record<"domainId" | "ip" | "service" | "baseDomain" | "sources" | "messages" | "delivered" | "firstSeen", string | number | null>>(sql`
    SELECT x.domain_id AS "domainId", x.ip AS "ip", MAX(x.service) AS "service", MAX(x.base_domain) AS "baseDomain", COUNT(*) AS "sources",
           SUM(x.messages) AS "messages", SUM(x.delivered) AS "delivered", MIN(x.first_seen) AS "firstSeen"
    FROM (SELECT g.domain_id, CASE WHEN n.source_ip IS NOT NULL ${individual} THEN g.source_ip ELSE '' END AS ip, n.service, n.base_domain, g.messages, g.delivered, g.first_seen
          FROM (SELECT s.domain_id, s.source_ip, SUM(s.messages - s.passed) AS messages, SUM(s.failed_delivered) AS delivered, MIN(s.first_failed_at) AS first_seen
                FROM daily_sender_stats s
                WHERE s.org_id = ${orgId} AND s.day > ${dayOf(from)} AND s.day <= ${dayOf(to)} AND s.first_failed_at IS NOT NULL
                GROUP BY s.domain_id, s.source_ip) g
          LEFT JOIN source_names n ON n.org_id = ${orgId} AND n.source_ip = g.source_ip) x
    GROUP BY x.domain_id, x.ip`);
  const senders = new Map<string, FailingSender>();
  for (const r of rows) {
    const firstSeenAt = date(r.firstSeen!);
    if (r.ip === "") {
      // the domain's unnamed, unmarked IPs: unrecognised, each its own sender
      senders.set(`${r.domainId}\n`, { domainId: String(r.domainId), service: null, sender: null, senderKey: null, sources: Number(r.sources), messages: Number(r.messages), delivered: Number(r.delivered), firstSeenAt });
      continue;
    }
    const service = r.service === null ? null : String(r.service);
    const sender = senderOf({ service, baseDomain: r.baseDomain === null ? null : String(r.baseDomain).toLowerCase(), sourceIp: String(r.ip) });
    const senderKey = senderKeyOf(sender);
    const key = `${r.domainId}\n${senderKey}`;
    const cur = senders.get(key);
    if (!cur) {
      senders.set(key, { domainId: String(r.domainId), service, sender: sender.sender, senderKey, sources: 1, messages: Number(r.messages), delivered: Number(r.delivered), firstSeenAt });
      continue;
    }
    cur.sources += 1;
    cur.messages += Number(r.messages);
    cur.delivered += Number(r.delivered);
    if (firstSeenAt < cur.firstSeenAt) cur.firstSeenAt = firstSeenAt;
  }
  return [...senders.values()];
}

/** Messages and DMARC-passing messages per domain, from the daily roll-ups of the UTC days after `from`'s day up to `to`'s. */
export async function trafficByDomain(ctx: Ctx, orgId: string, from: Date, to: Date): Promise<{ domainId: string; messages: number; passing: number }[]> {
  const rows = await ctx.store.rows<{ domainId: string; messages: number | string; passing: number | string }>(sql`
    SELECT domain_id AS "domainId", SUM(messages) AS "messages", SUM(passed) AS "passing"
    FROM daily_domain_stats WHERE org_id = ${orgId} AND day > ${dayOf(from)} AND day <= ${dayOf(to)} GROUP BY domain_id`);
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
 * Source IPs whose mail failed DMARC, most attempts first, at most `limit`, from the daily
 * sender roll-ups of the UTC days `fromDay`…`toDay`: summed per IP first, then the few shown
 * are named from source_names.
 */
export async function failingSources(ctx: Ctx, orgId: string, opts: { fromDay: number; toDay: number; limit: number }): Promise<FailingSource[]> {
  const rows = await ctx.store.rows<Record<"ip" | "attempts" | "delivered" | "country" | "city" | "ptr" | "service" | "baseDomain" | "lastSeen" | "domains", string | number | null>>(sql`
    SELECT g.source_ip AS "ip", g.attempts AS "attempts", g.delivered AS "delivered", g.country AS "country", g.city AS "city",
           n.ptr AS "ptr", n.service AS "service", n.base_domain AS "baseDomain", g.last_seen AS "lastSeen", g.domains AS "domains"
    FROM (SELECT s.source_ip, SUM(s.messages - s.passed) AS attempts, SUM(s.failed_delivered) AS delivered, MAX(s.country) AS country, MAX(s.city) AS city,
                 MAX(s.last_failed_at) AS last_seen, ${distinctList(ctx.store.dialect, sql`s.policy_domain`)} AS domains
          FROM daily_sender_stats s
          WHERE s.org_id = ${orgId} AND s.day >= ${opts.fromDay} AND s.day <= ${opts.toDay} AND s.last_failed_at IS NOT NULL
          GROUP BY s.source_ip ORDER BY attempts DESC, s.source_ip LIMIT ${opts.limit}) g
    LEFT JOIN source_names n ON n.org_id = ${orgId} AND n.source_ip = g.source_ip
    ORDER BY g.attempts DESC, g.source_ip`);
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
