import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./accounts";
import { createdAt, id, timestamp } from "./columns";

/**
 * Single-use, expiring set-password links (forgot password, and the first password of a
 * trial account). Only a SHA-256 of the token is stored, like sessions.
 */
export const passwordTokens = sqliteTable(
  "password_tokens",
  {
    id: id(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp" }).notNull(),
    usedAt: timestamp("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("password_tokens_token_hash_unique").on(t.tokenHash), index("password_tokens_user_idx").on(t.userId)],
);

/** Single-use, expiring email-verification links mailed at sign-up. Only a SHA-256 of the token is stored. */
export const emailVerificationTokens = sqliteTable(
  "email_verification_tokens",
  {
    id: id(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    expiresAt: integer("expires_at", { mode: "timestamp" }).notNull(),
    usedAt: timestamp("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("email_verification_tokens_token_hash_unique").on(t.tokenHash), index("email_verification_tokens_user_idx").on(t.userId)],
);
