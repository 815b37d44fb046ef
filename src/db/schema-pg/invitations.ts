import { index, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations, ROLES, users } from "./accounts";
import { createdAt, epoch, tenantId, timestamp } from "./columns";

export const invitations = pgTable(
  "invitations",
  {
    id: tenantId(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: epoch("expires_at").notNull(),
    acceptedAt: timestamp("accepted_at"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    uniqueIndex("invitations_token_hash_unique").on(t.orgId, t.tokenHash),
    // an invitation link carries only the token: its lookup
    index("invitations_token_hash_idx").on(t.tokenHash),
    index("invitations_org_idx").on(t.orgId),
  ],
);
