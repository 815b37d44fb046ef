import { integer, sqliteTable, text, uniqueIndex, index } from "drizzle-orm/sqlite-core";
import { createdAt, id } from "./columns";

/** The Master Administrator account(s), seeded with `serve --seed-admin USER:PASS`. */
export const adminUsers = sqliteTable(
  "admin_users",
  {
    id: id(),
    username: text("username").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("admin_users_username_unique").on(t.username)],
);

/** Admin console sessions (sent as X-Admin-Session). Only a SHA-256 of the id is stored. */
export const adminSessions = sqliteTable(
  "admin_sessions",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    adminId: text("admin_id").notNull().references(() => adminUsers.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    lastSeenAt: integer("last_seen_at", { mode: "timestamp" }).notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp" }).notNull(),
  },
  (t) => [uniqueIndex("admin_sessions_token_hash_unique").on(t.tokenHash), index("admin_sessions_admin_idx").on(t.adminId)],
);
