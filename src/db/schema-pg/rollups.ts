import { sql } from "drizzle-orm";
import { bigint, foreignKey, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { organizations, users } from "./accounts";
import { timestamp } from "./columns";
import { domains } from "./domains";
import { SENDER_VERDICTS } from "../schema/rollups";

export { SENDER_VERDICTS, type SenderVerdict } from "../schema/rollups";

/**
 * Daily roll-ups of aggregate records, written in the same transaction as the report, so
 * charts and trends never scan raw records. `day` is the UTC day (days since 1970-01-01) on
 * which the report's date range begins: a report spanning several days counts on its first.
 *
 * The four roll-ups keyed by domain (daily_domain_stats, daily_sender_stats, daily_country_stats,
 * dkim_selectors_seen) have no key of their own to `organizations` here, unlike SQLite: their
 * (org_id, domain_id) key to `domains` implies it (a domain's organization is checked by the
 * domain's own key, and deleting an organization deletes its domains and so their roll-ups).
 * PostgreSQL checks every key row by row, and that redundant check was about a sixth of a
 * roll-up upsert's time (PostgreSQL migration 0028). daily_sender_stats has no key to `domains`
 * either since migration 0029, nor daily_country_stats since 0031: their rows are written with a
 * report of their domain, whose key holds the domain, and triggers on `domains` delete them with it
 * (docs/store.md).
 */
export const dailyDomainStats = pgTable(
  "daily_domain_stats",
  {
    orgId: text("org_id").notNull(),
    domainId: text("domain_id").notNull(),
    day: integer("day").notNull(),
    messages: bigint("messages", { mode: "number" }).notNull().default(0),
    /** messages with DMARC pass (aligned SPF or aligned DKIM) */
    passed: bigint("passed", { mode: "number" }).notNull().default(0),
    /** messages with the disposition quarantine / reject applied */
    quarantined: bigint("quarantined", { mode: "number" }).notNull().default(0),
    rejected: bigint("rejected", { mode: "number" }).notNull().default(0),
    spfAligned: bigint("spf_aligned", { mode: "number" }).notNull().default(0),
    dkimAligned: bigint("dkim_aligned", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.domainId, t.day] }),
    foreignKey({ name: "daily_domain_stats_domain_fk", columns: [t.orgId, t.domainId], foreignColumns: [domains.orgId, domains.id] }).onDelete("cascade"),
    index("daily_domain_stats_org_day_idx").on(t.orgId, t.day),
  ],
);

/** The same per sending IP and reported policy domain (see the SQLite schema). */
export const dailySenderStats = pgTable(
  "daily_sender_stats",
  {
    orgId: text("org_id").notNull(),
    day: integer("day").notNull(),
    sourceIp: text("source_ip").notNull(),
    policyDomain: text("policy_domain").notNull(),
    domainId: text("domain_id").notNull(),
    country: text("country"),
    city: text("city"),
    messages: bigint("messages", { mode: "number" }).notNull().default(0),
    passed: bigint("passed", { mode: "number" }).notNull().default(0),
    quarantined: bigint("quarantined", { mode: "number" }).notNull().default(0),
    rejected: bigint("rejected", { mode: "number" }).notNull().default(0),
    spfAligned: bigint("spf_aligned", { mode: "number" }).notNull().default(0),
    dkimAligned: bigint("dkim_aligned", { mode: "number" }).notNull().default(0),
    failedDelivered: bigint("failed_delivered", { mode: "number" }).notNull().default(0),
    firstFailedAt: bigint("first_failed_at", { mode: "number" }),
    lastFailedAt: bigint("last_failed_at", { mode: "number" }),
    lastBegin: bigint("last_begin", { mode: "number" }).notNull(),
    auth: text("auth"),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.day, t.sourceIp, t.policyDomain] }),
    // no foreign key to the domain (PostgreSQL migration 0029): a roll-up row is written in the
    // transaction of a report of its domain, whose own key to the domain holds the domain row until
    // the commit, so its domain exists by construction; the key's check cost about 5 µs of the 16 a
    // bulk ingest's row takes. Removing a domain deletes its rows by the statement trigger
    // `domains_delete_sender_days` (in the migration: drizzle does not express triggers).
    index("daily_sender_stats_org_ip_idx").on(t.orgId, t.sourceIp, t.day),
    index("daily_sender_stats_org_domain_day_idx").on(t.orgId, t.domainId, t.day),
    index("daily_sender_stats_org_day_failing_idx")
      .on(t.orgId, t.day, t.domainId, t.sourceIp, t.messages, t.passed, t.failedDelivered, t.firstFailedAt)
      .where(sql`first_failed_at IS NOT NULL`),
  ],
);

/** Per organization, day, domain and country of the sending IPs (see the SQLite schema). */
export const dailyCountryStats = pgTable(
  "daily_country_stats",
  {
    orgId: text("org_id").notNull(),
    day: integer("day").notNull(),
    domainId: text("domain_id").notNull(),
    country: text("country").notNull(),
    messages: bigint("messages", { mode: "number" }).notNull().default(0),
    passed: bigint("passed", { mode: "number" }).notNull().default(0),
  },
  // no key to `domains`: see the module comment (migration 0031)
  (t) => [primaryKey({ columns: [t.orgId, t.day, t.domainId, t.country] })],
);

/** The DKIM selectors reported per organization and domain row (see the SQLite schema). */
export const dkimSelectorsSeen = pgTable(
  "dkim_selectors_seen",
  {
    orgId: text("org_id").notNull(),
    domainId: text("domain_id").notNull(),
    authDomain: text("auth_domain").notNull(),
    selector: text("selector").notNull(),
    lastBegin: bigint("last_begin", { mode: "number" }).notNull(),
    results: bigint("results", { mode: "number" }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.domainId, t.authDomain, t.selector] }),
    foreignKey({ name: "dkim_selectors_seen_domain_fk", columns: [t.orgId, t.domainId], foreignColumns: [domains.orgId, domains.id] }).onDelete("cascade"),
  ],
);

/** Per organisation and sending IP, its reverse DNS name and the sending service it names. */
export const sourceNames = pgTable(
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

export const senderMarks = pgTable(
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

/** See the SQLite twin: one counter per organisation, raised with every change to what kept reads read (its writers or triggers), and the raises that leave the settled days' sums as they were. */
export const rollupVersions = pgTable("rollup_versions", {
  orgId: text("org_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  version: bigint("version", { mode: "number" }).notNull().default(0),
  unsettledRaises: bigint("unsettled_raises", { mode: "number" }).notNull().default(0),
});
