import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations, ROLES, users } from "./accounts";
import { createdAt, timestamp } from "./columns";

/**
 * An organisation's single sign-on (OpenID Connect): at most one identity provider per
 * organisation. The client secret is sealed with the server key (AES-256-GCM, bound to the
 * organisation) and never answered; allowed email domains are a JSON array of lower-case names,
 * each used only once proved by DNS (`proved_domains`).
 */
export const ssoConnections = sqliteTable("sso_connections", {
  orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  clientSecretEncrypted: text("client_secret_encrypted").notNull(),
  allowedDomains: text("allowed_domains").notNull(),
  /** the allowed domains whose DNS proof record was found (JSON array); the others are pending and used for nothing */
  provedDomains: text("proved_domains").notNull().default("[]"),
  /** the role a person gets who joins the organisation by signing in through it */
  newUserRole: text("new_user_role", { enum: ROLES }).notNull().default("viewer"),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at").notNull(),
  updatedBy: text("updated_by").references(() => users.id, { onDelete: "set null" }),
});
