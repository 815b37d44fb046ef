import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";

/**
 * Client reports of an MSP (issue 17): per client organisation, the outside contacts its
 * managing organisation chose to receive the client's weekly digest, and whether it is sent.
 * Set by the managing organisation's owners and admins; one row per client.
 */
export const clientReportSettings = sqliteTable("client_report_settings", {
  clientOrgId: text("client_org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  /** JSON array of lower-cased email addresses (at most 10) */
  contacts: text("contacts").notNull().default("[]"),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
  /** when the weekly report last reached at least one contact */
  lastSentAt: integer("last_sent_at", { mode: "timestamp" }),
  /** JSON array of { to, error } of the last send's refused addresses; null: none refused */
  lastFailures: text("last_failures"),
  lastFailedAt: integer("last_failed_at", { mode: "timestamp" }),
  updatedAt: integer("updated_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date()),
});
