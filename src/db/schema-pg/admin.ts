import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, epoch, id } from "./columns";

export const adminUsers = pgTable(
  "admin_users",
  {
    id: id(),
    username: text("username").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("admin_users_username_unique").on(t.username)],
);

export const adminSessions = pgTable(
  "admin_sessions",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    adminId: text("admin_id").notNull().references(() => adminUsers.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastSeenAt: epoch("last_seen_at").notNull(),
    expiresAt: epoch("expires_at").notNull(),
  },
  (t) => [uniqueIndex("admin_sessions_token_hash_unique").on(t.tokenHash), index("admin_sessions_admin_idx").on(t.adminId)],
);
