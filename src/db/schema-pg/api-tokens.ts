import { index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations, ROLES, users } from "./accounts";
import { createdAt, tenantId, timestamp } from "./columns";

export const apiTokens = pgTable(
  "api_tokens",
  {
    id: tenantId(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    createdBy: text("created_by").notNull().references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at"),
    lastUsedAt: timestamp("last_used_at"),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    uniqueIndex("api_tokens_token_hash_unique").on(t.orgId, t.tokenHash),
    // a request carries only the token: its lookup
    index("api_tokens_token_hash_idx").on(t.tokenHash),
    index("api_tokens_org_idx").on(t.orgId),
  ],
);
