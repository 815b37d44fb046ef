import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text, uniqueIndex, type AnyPgColumn } from "drizzle-orm/pg-core";
import { ROLES } from "../schema/accounts";
import { createdAt, epoch, id, tenantId, timestamp } from "./columns";

export { ROLES, type Role } from "../schema/accounts";

export const organizations = pgTable(
  "organizations",
  {
    id: id(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    parentId: text("parent_id").references((): AnyPgColumn => organizations.id, { onDelete: "restrict" }),
    plan: text("plan").notNull().default("growth"),
    planStatus: text("plan_status").notNull().default("none"),
    trialEndsAt: timestamp("trial_ends_at"),
    reportToken: text("report_token").notNull().$defaultFn(() => crypto.randomUUID().replace(/-/g, "").slice(0, 16)),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("organizations_slug_unique").on(t.slug), uniqueIndex("organizations_report_token_unique").on(t.reportToken), index("organizations_parent_idx").on(t.parentId)],
);

export const users = pgTable(
  "users",
  {
    id: id(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    emailVerifiedAt: timestamp("email_verified_at"),
    totpSecret: text("totp_secret"),
    totpPendingSecret: text("totp_pending_secret"),
    totpEnabledAt: timestamp("totp_enabled_at"),
    totpLastStep: integer("totp_last_step"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email)],
);

export const memberships = pgTable(
  "memberships",
  {
    id: tenantId(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.id] }), uniqueIndex("memberships_org_user_unique").on(t.orgId, t.userId), index("memberships_user_idx").on(t.userId)],
);

export const sessions = pgTable(
  "sessions",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    currentOrgId: text("current_org_id").references(() => organizations.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    lastSeenAt: epoch("last_seen_at").notNull().default(sql`(extract(epoch from now())::bigint)`),
    expiresAt: epoch("expires_at").notNull(),
  },
  (t) => [uniqueIndex("sessions_token_hash_unique").on(t.tokenHash), index("sessions_user_idx").on(t.userId)],
);
