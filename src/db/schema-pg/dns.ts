import { foreignKey, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { tenantId, timestamp } from "./columns";
import { domains } from "./domains";

export const domainRecordHistory = pgTable(
  "domain_record_history",
  {
    id: tenantId(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: text("domain_id").notNull(),
    checkedAt: timestamp("checked_at").notNull(),
    dmarcRecord: text("dmarc_record"),
    spfRecord: text("spf_record"),
    dkimRecord: text("dkim_record"),
    dmarcPolicy: text("dmarc_policy").notNull(),
    spfStatus: text("spf_status").notNull(),
    dkimStatus: text("dkim_status").notNull(),
    overallStatus: text("overall_status").notNull(),
    changed: text("changed").notNull().default(""),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    foreignKey({ name: "domain_record_history_domain_fk", columns: [t.orgId, t.domainId], foreignColumns: [domains.orgId, domains.id] }).onDelete("cascade"),
    index("domain_record_history_domain_idx").on(t.domainId, t.checkedAt),
  ],
);
