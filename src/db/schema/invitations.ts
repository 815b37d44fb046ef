import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations, ROLES, users } from "./accounts";
import { createdAt, id, timestamp } from "./columns";

/**
 * An invitation to join an organisation with a role: a single-use link whose token is
 * stored only as a SHA-256. Accepted (acceptedAt set) or expired links no longer work.
 */
export const invitations = sqliteTable(
  "invitations",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** lower-cased */
    email: text("email").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedBy: text("invited_by").references(() => users.id, { onDelete: "set null" }),
    expiresAt: integer("expires_at", { mode: "timestamp" }).notNull(),
    acceptedAt: timestamp("accepted_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("invitations_token_hash_unique").on(t.tokenHash), index("invitations_org_idx").on(t.orgId)],
);
