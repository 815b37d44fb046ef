import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { createdAt, epoch, timestamp } from "./columns";

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
