import { index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { createdAt, tenantId, timestamp } from "./columns";

export const domains = pgTable(
  "domains",
  {
    id: tenantId(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    dmarcPolicy: text("dmarc_policy"),
    spfStatus: text("spf_status"),
    dkimStatus: text("dkim_status"),
    overallStatus: text("overall_status").notNull().default("pending"),
    lastCheckedAt: timestamp("last_checked_at"),
    checkFailedAt: timestamp("check_failed_at"),
    lastReportAt: timestamp("last_report_at"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), uniqueIndex("domains_org_name_unique").on(t.orgId, t.name), index("domains_name_idx").on(t.name)],
);
