import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./accounts";
import { timestamp } from "./columns";
import { domains } from "./domains";

/**
 * Daily roll-ups of aggregate records, written in the same transaction as the report, so
 * charts and trends never scan raw records. `day` is the UTC day (days since 1970-01-01) on
 * which the report's date range begins: a report spanning several days counts on its first.
 */
export const dailyDomainStats = sqliteTable(
  "daily_domain_stats",
  {
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    messages: integer("messages").notNull().default(0),
    /** messages with DMARC pass (aligned SPF or aligned DKIM) */
    passed: integer("passed").notNull().default(0),
    /** messages with the disposition quarantine / reject applied */
    quarantined: integer("quarantined").notNull().default(0),
    rejected: integer("rejected").notNull().default(0),
    spfAligned: integer("spf_aligned").notNull().default(0),
    dkimAligned: integer("dkim_aligned").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.domainId, t.day] }), index("daily_domain_stats_org_day_idx").on(t.orgId, t.day)],
);

/**
 * The same per sending IP and reported policy domain (each row with the domain row it counts
 * for): the one per-address roll-up. Top sources, the domain page's sources, the sender page,
 * the digests, the Senders view, the threats list and the tasks read it. Besides the counts:
 * failing mail that was delivered, when failing mail was first and last reported, the newest
 * report period's start and the IP's city. Times are epoch seconds. The day rule is the other
 * roll-ups'. On SQLite a WITHOUT ROWID table (migration 0025, which drizzle does not express; an
 * organization's window is one run of its primary key): a generated migration that rebuilds it
 * must keep that.
 */
export const dailySenderStats = sqliteTable(
  "daily_sender_stats",
  {
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    sourceIp: text("source_ip").notNull(),
    /** the report's policy domain as the reporter wrote it */
    policyDomain: text("policy_domain").notNull(),
    /**
     * No foreign key (migration 0032): a row is written in the transaction of a report of its
     * domain, whose own key holds, and removing a domain deletes its rows by the trigger
     * `domains_delete_sender_days` on the (org, domain, day) index. A key's cascade looked the
     * removed domain's rows up by the domain alone, which no index leads with: a scan of the whole
     * table (17-41 s for one domain of the 10 M-record bench database), and a check at every row
     * written.
     */
    domainId: text("domain_id").notNull(),
    country: text("country"),
    city: text("city"),
    messages: integer("messages").notNull().default(0),
    passed: integer("passed").notNull().default(0),
    /** messages with the disposition quarantine / reject applied */
    quarantined: integer("quarantined").notNull().default(0),
    rejected: integer("rejected").notNull().default(0),
    spfAligned: integer("spf_aligned").notNull().default(0),
    dkimAligned: integer("dkim_aligned").notNull().default(0),
    /** messages that failed DMARC and were delivered (disposition none) */
    failedDelivered: integer("failed_delivered").notNull().default(0),
    /** the earliest period start of a report with failing mail from the IP, null without failures */
    firstFailedAt: integer("first_failed_at"),
    /** the latest "mail seen" (period end, or arrival if earlier) of a report with failing mail from the IP */
    lastFailedAt: integer("last_failed_at"),
    /** the latest period start of a report with mail from the IP */
    lastBegin: integer("last_begin").notNull(),
    /**
     * The DKIM and SPF results receivers reported for the IP that day (`authResultsText` in
     * rollups.ts): a JSON object of each result's key (method `d` or `s`, result domain lowercased
     * or `=` for this row's policy domain, selector or '', result, joined by a line feed) to its
     * messages; null without results. An upsert sums the two objects key by key. Until migration
     * 0029 a table of its own (`daily_auth_stats`, two rows a source a day).
     */
    auth: text("auth"),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.day, t.sourceIp, t.policyDomain] }),
    index("daily_sender_stats_org_ip_idx").on(t.orgId, t.sourceIp, t.day),
    /** one domain's days (the domain page's sources, trends and alerts of one domain) */
    index("daily_sender_stats_org_domain_day_idx").on(t.orgId, t.domainId, t.day),
    /**
     * The rows with failing mail, with everything the tasks sum over a window (failing mail per
     * domain and IP): read from the index alone, without a lookup of each row.
     */
    index("daily_sender_stats_org_day_failing_idx")
      .on(t.orgId, t.day, t.domainId, t.sourceIp, t.messages, t.passed, t.failedDelivered, t.firstFailedAt)
      .where(sql`first_failed_at IS NOT NULL`),
  ],
);

/**
 * The same per country of the sending IPs (as located at ingest; '' when unlocated), without
 * the IPs: the threat map reads a few rows per day instead of one per source.
 */
export const dailyCountryStats = sqliteTable(
  "daily_country_stats",
  {
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
    country: text("country").notNull(),
    messages: integer("messages").notNull().default(0),
    passed: integer("passed").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.day, t.domainId, t.country] })],
);

/**
 * The DKIM selectors reported per organization and domain row: per signing domain (d=,
 * lowercased) and selector (lowercased) the latest report period start (epoch seconds) and the
 * DKIM results that named it. What the domain page and the DNS checks try besides the common
 * selectors (`selectorsSeen`), without reading the records.
 */
export const dkimSelectorsSeen = sqliteTable(
  "dkim_selectors_seen",
  {
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
    authDomain: text("auth_domain").notNull(),
    selector: text("selector").notNull(),
    lastBegin: integer("last_begin").notNull(),
    results: integer("results").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.domainId, t.authDomain, t.selector] })],
);

/** Per organisation and sending IP, its reverse DNS name and the sending service it names (written by the PTR enrichment). */
export const sourceNames = sqliteTable(
  "source_names",
  {
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    sourceIp: text("source_ip").notNull(),
    ptr: text("ptr").notNull(),
    baseDomain: text("base_domain"),
    service: text("service"),
    serviceType: text("service_type"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.sourceIp] }), index("source_names_org_service_idx").on(t.orgId, t.service)],
);

/** A user's verdict on a sender (a sending service, a base domain or one IP) of the organisation. */
export const SENDER_VERDICTS = ["approved", "not_ours"] as const;
export type SenderVerdict = (typeof SENDER_VERDICTS)[number];

export const senderMarks = sqliteTable(
  "sender_marks",
  {
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** e.g. "service:Google", "domain:example.net", "ip:192.0.2.1" */
    senderKey: text("sender_key").notNull(),
    verdict: text("verdict", { enum: SENDER_VERDICTS }).notNull(),
    markedBy: text("marked_by").references(() => users.id, { onDelete: "set null" }),
    markedAt: timestamp("marked_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.senderKey] })],
);

/**
 * One counter per organisation, raised in the same transaction as every change to what the kept
 * reads read (`daily_sender_stats`, `source_names`, `sender_marks`): by the writers of the first
 * two once per organization a write touches (migration 0031), by triggers for deletions and marks;
 * the retention purge raises it with the records it deletes. A server keeps the
 * Senders list, the sender page, trends' top sources, a domain's sources and the tasks' failing
 * mail while the counter holds (src/features/reports/read-cache.ts), so several servers on one
 * database never serve an answer older than the data. The row is made with the organisation
 * (trigger), and goes with it.
 *
 * `unsettled_raises` counts the raises for changes that leave every sum of the settled days (up
 * to two UTC days ago) as it was: the report writer's when its sender rows were all of the last
 * two days, and reverse DNS names (migration 0034). `version - unsettled_raises`, the settled
 * version, then holds while nothing changed the older days' sender rows, and the window reads
 * keep their sums of those days while it holds (`windowSums`, read-cache.ts). Every other raise
 * leaves the count as it is, so it changes the settled version too.
 */
export const rollupVersions = sqliteTable("rollup_versions", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  version: integer("version").notNull().default(0),
  unsettledRaises: integer("unsettled_raises").notNull().default(0),
});
