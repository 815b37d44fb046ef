import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";
import { createdAt, timestamp } from "./columns";

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
