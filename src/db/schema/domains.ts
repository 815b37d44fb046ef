import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";
import { createdAt, id, timestamp } from "./columns";

/** A domain an organisation monitors. Status columns are filled by the DNS checks. */
export const domains = sqliteTable(
  "domains",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** lower-case, no trailing dot */
    name: text("name").notNull(),
    /** reject | quarantine | none | missing | invalid; null until first checked */
    dmarcPolicy: text("dmarc_policy"),
    /** valid | missing | invalid | too many lookups; null until first checked */
    spfStatus: text("spf_status"),
    /** valid | weak key | missing | invalid; null until first checked */
    dkimStatus: text("dkim_status"),
    /** protected | partial | vulnerable | pending */
    overallStatus: text("overall_status").notNull().default("pending"),
    /** the last check that succeeded: the statuses above are from then */
    lastCheckedAt: timestamp("last_checked_at"),
    /** the last check the DNS server did not answer (timeout, SERVFAIL, refused); null once a check succeeds */
    checkFailedAt: timestamp("check_failed_at"),
    lastReportAt: timestamp("last_report_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("domains_org_name_unique").on(t.orgId, t.name), index("domains_name_idx").on(t.name)],
);
