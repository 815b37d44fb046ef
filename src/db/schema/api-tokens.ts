import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations, ROLES, users } from "./accounts";
import { createdAt, id, timestamp } from "./columns";

/**
 * An organisation's API tokens (`Authorization: Bearer <token>`): a name, a role no higher than
 * its creator's, an optional expiry. The token itself is shown once; only its SHA-256 is stored.
 * It acts for its creator's membership too: the creator's account ending ends the token.
 */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    createdBy: text("created_by").notNull().references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at"),
    lastUsedAt: timestamp("last_used_at"),
  },
  (t) => [uniqueIndex("api_tokens_token_hash_unique").on(t.tokenHash), index("api_tokens_org_idx").on(t.orgId)],
);
