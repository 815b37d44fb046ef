import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";
import { id, timestamp } from "./columns";

export const AUDIT_ACTOR_KINDS = ["user", "token", "system"] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];

/**
 * The organisation's audit log: who (a user, an API token or the system) did what, when and from
 * which address. Append-only: the audit feature inserts rows and reads them; nothing updates them,
 * and only the organisation's deletion (cascade) removes them. Kept at least a year.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    at: timestamp("at").notNull(),
    actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    /** the user's or token's id; null for the system */
    actorId: text("actor_id"),
    /** what the actor was called at the time (an email address, a token's name, "system") */
    actorLabel: text("actor_label").notNull(),
    /** e.g. `auth.sign_in`, `domain.added` (the list in src/features/audit/actions.ts) */
    action: text("action").notNull(),
    /** what it was done to (a domain name, a member's email address, …) */
    target: text("target"),
    /** the client's IP address */
    address: text("address"),
    /** JSON object with details; never secrets */
    data: text("data"),
  },
  (t) => [
    index("audit_log_org_time_idx").on(t.orgId, t.at),
    index("audit_log_org_action_idx").on(t.orgId, t.action, t.at),
    index("audit_log_org_actor_idx").on(t.orgId, t.actorId, t.at),
  ],
);
