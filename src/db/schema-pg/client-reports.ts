import { boolean, pgTable, text } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { epoch } from "./columns";

export const clientReportSettings = pgTable("client_report_settings", {
  clientOrgId: text("client_org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  contacts: text("contacts").notNull().default("[]"),
  enabled: boolean("enabled").notNull().default(false),
  lastSentAt: epoch("last_sent_at"),
  lastFailures: text("last_failures"),
  lastFailedAt: epoch("last_failed_at"),
  updatedAt: epoch("updated_at").notNull().$defaultFn(() => new Date()),
});
