import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";
import { createdAt, id, timestamp } from "./columns";

/** Ten single-use codes per user with two-factor sign-in, for a lost device. Only a SHA-256 is stored. */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    id: id(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamp("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("recovery_codes_hash_unique").on(t.userId, t.codeHash)],
);

/**
 * A password that was right for an account with two-factor sign-in: no session yet, only this
 * short-lived row behind an httpOnly cookie until POST /api/auth/login/2fa gets a good code.
 * Used once; counts wrong codes. Only a SHA-256 of the cookie token is stored.
 */
export const pendingLogins = sqliteTable(
  "pending_logins",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    failures: integer("failures").notNull().default(0),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp" }).notNull(),
  },
  (t) => [uniqueIndex("pending_logins_token_hash_unique").on(t.tokenHash), index("pending_logins_user_idx").on(t.userId)],
);
