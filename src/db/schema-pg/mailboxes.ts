import { boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { createdAt, epoch, tenantId, timestamp } from "./columns";
import { OAUTH_MAIL_PROVIDERS } from "../schema/mailboxes";
export { OAUTH_MAIL_PROVIDERS };

export const reportMailboxes = pgTable("report_mailboxes", {
  orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  host: text("host").notNull(),
  port: integer("port").notNull(),
  tls: boolean("tls").notNull().default(true),
  username: text("username").notNull(),
  passwordEncrypted: text("password_encrypted").notNull(),
  folder: text("folder").notNull().default("INBOX"),
  lastPolledAt: timestamp("last_polled_at"),
  lastError: text("last_error"),
  lastPollMessages: integer("last_poll_messages"),
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  createdAt: createdAt(),
  updatedAt: epoch("updated_at").notNull().$defaultFn(() => new Date()),
});

export type ReportMailbox = typeof reportMailboxes.$inferSelect;

export const oauthMailboxes = pgTable(
  "oauth_mailboxes",
  {
    id: tenantId(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: OAUTH_MAIL_PROVIDERS }).notNull(),
    email: text("email").notNull(),
    folder: text("folder").notNull().default("INBOX"),
    refreshTokenEncrypted: text("refresh_token_encrypted").notNull(),
    accessTokenEncrypted: text("access_token_encrypted"),
    accessTokenExpiresAt: timestamp("access_token_expires_at"),
    status: text("status", { enum: ["active", "reconnect"] }).notNull().default("active"),
    lastPolledAt: timestamp("last_polled_at"),
    lastError: text("last_error"),
    lastPollMessages: integer("last_poll_messages"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: epoch("updated_at").notNull().$defaultFn(() => new Date()),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), uniqueIndex("oauth_mailboxes_address_unique").on(t.orgId, t.provider, t.email), index("oauth_mailboxes_org_idx").on(t.orgId)],
);

export type OAuthMailbox = typeof oauthMailboxes.$inferSelect;
