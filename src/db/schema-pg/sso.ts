import { boolean, pgTable, text } from "drizzle-orm/pg-core";
import { organizations, ROLES, users } from "./accounts";
import { createdAt, timestamp } from "./columns";

export const ssoConnections = pgTable("sso_connections", {
  orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretEncrypted: text("client_secret_encrypted").notNull(),
  allowedDomains: text("allowed_domains").notNull(),
  provedDomains: text("proved_domains").notNull().default("[]"),
  newUserRole: text("new_user_role", { enum: ROLES }).notNull().default("viewer"),
  enabled: boolean("enabled").notNull().default(true),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at").notNull(),
  updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
});
