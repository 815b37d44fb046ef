import { index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { tenantId, timestamp } from "./columns";
import { AUDIT_ACTOR_KINDS } from "../schema/audit";

export { AUDIT_ACTOR_KINDS, type AuditActorKind } from "../schema/audit";

export const auditLog = pgTable(
  "audit_log",
  {
    id: tenantId(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    at: timestamp("at").notNull(),
    actorKind: text("actor_kind", { enum: AUDIT_ACTOR_KINDS }).notNull(),
    actorId: text("actor_id"),
    actorLabel: text("actor_label").notNull(),
    action: text("action").notNull(),
    target: text("target"),
    address: text("address"),
    data: text("data"),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.id] }),
    index("audit_log_org_time_idx").on(t.orgId, t.at),
    index("audit_log_org_action_idx").on(t.orgId, t.action, t.at),
    index("audit_log_org_actor_idx").on(t.orgId, t.actorId, t.at),
  ],
);
