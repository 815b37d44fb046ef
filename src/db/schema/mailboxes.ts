import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";
import { createdAt, id, timestamp } from "./columns";

/**
 * The IMAP mailbox an organisation may connect so the scheduler fetches its report mail.
 * One per organisation. The password is only ever stored encrypted (AES-256-GCM under the
 * server key, see src/features/mailin/secret-box.ts).
 */
export const reportMailboxes = sqliteTable("report_mailboxes", {
  orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  host: text("host").notNull(),
  port: integer("port").notNull(),
  /** true: implicit TLS (IMAPS, usually port 993); false: plain, upgraded with STARTTLS when offered */
  tls: integer("tls", { mode: "boolean" }).notNull().default(true),
  username: text("username").notNull(),
  /** "v1.<iv>.<tag>.<ciphertext>" (base64url), never the plain password */
  passwordEncrypted: text("password_encrypted").notNull(),
  folder: text("folder").notNull().default("INBOX"),
  lastPolledAt: timestamp("last_polled_at"),
  /** null after a successful poll; otherwise what went wrong, in words a user can act on */
  lastError: text("last_error"),
  /** messages handled by the last successful poll */
  lastPollMessages: integer("last_poll_messages"),
  /** polls failed in a row since the last successful one (an account event at 3) */
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  createdAt: createdAt(),
  updatedAt: integer("updated_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date()),
});

export type ReportMailbox = typeof reportMailboxes.$inferSelect;

/** OAuth2 mail providers a mailbox can be connected through (src/features/mailin/oauth-providers.ts). */
export const OAUTH_MAIL_PROVIDERS = ["microsoft", "google"] as const;
export type OAuthMailProvider = (typeof OAUTH_MAIL_PROVIDERS)[number];

/**
 * Mailboxes connected with OAuth2 (Microsoft 365 through Microsoft Graph, Google Workspace
 * through the Gmail API); several per organisation, one per provider and address. Tokens are
 * only ever stored encrypted under the server key (secret-box.ts).
 */
export const oauthMailboxes = sqliteTable(
  "oauth_mailboxes",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    provider: text("provider", { enum: OAUTH_MAIL_PROVIDERS }).notNull(),
    /** the mailbox address the provider reported at connection */
    email: text("email").notNull(),
    /** the folder (Graph) or label (Gmail) reports arrive in */
    folder: text("folder").notNull().default("INBOX"),
    refreshTokenEncrypted: text("refresh_token_encrypted").notNull(),
    accessTokenEncrypted: text("access_token_encrypted"),
    accessTokenExpiresAt: timestamp("access_token_expires_at"),
    /** "active", or "reconnect" once the provider refused the refresh token (consent revoked) */
    status: text("status", { enum: ["active", "reconnect"] }).notNull().default("active"),
    lastPolledAt: timestamp("last_polled_at"),
    lastError: text("last_error"),
    lastPollMessages: integer("last_poll_messages"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date()),
  },
  (t) => [uniqueIndex("oauth_mailboxes_address_unique").on(t.orgId, t.provider, t.email), index("oauth_mailboxes_org_idx").on(t.orgId)],
);

export type OAuthMailbox = typeof oauthMailboxes.$inferSelect;
