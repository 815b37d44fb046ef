import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";
import { id, timestamp } from "./columns";
import { domains } from "./domains";

/**
 * A domain's DNS record history: one row each time a check finds the DMARC, SPF or DKIM
 * record (or a status) different from the previous row — including the first check.
 */
export const domainRecordHistory = sqliteTable(
  "domain_record_history",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
    checkedAt: timestamp("checked_at").notNull(),
    dmarcRecord: text("dmarc_record"),
    spfRecord: text("spf_record"),
    /** "selector: record" lines of the keys found */
    dkimRecord: text("dkim_record"),
    dmarcPolicy: text("dmarc_policy").notNull(),
    spfStatus: text("spf_status").notNull(),
    dkimStatus: text("dkim_status").notNull(),
    overallStatus: text("overall_status").notNull(),
    /** which of dmarc, spf, dkim changed since the previous row, comma separated ("" on the first row) */
    changed: text("changed").notNull().default(""),
  },
  (t) => [index("domain_record_history_domain_idx").on(t.domainId, t.checkedAt)],
);
