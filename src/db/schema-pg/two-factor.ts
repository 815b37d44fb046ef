import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { createdAt, epoch, id, timestamp } from "./columns";

export const recoveryCodes = pgTable(
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

export const pendingLogins = pgTable(
  "pending_logins",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    failures: integer("failures").notNull().default(0),
    createdAt: createdAt(),
    expiresAt: epoch("expires_at").notNull(),
  },
  (t) => [uniqueIndex("pending_logins_token_hash_unique").on(t.tokenHash), index("pending_logins_user_idx").on(t.userId)],
);
