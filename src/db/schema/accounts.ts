import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { createdAt, id, timestamp } from "./columns";

export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const organizations = sqliteTable(
  "organizations",
  {
    id: id(),
    name: text("name").notNull(),
    /** stable, URL- and CLI-friendly name (`dmarcwarden ingest --org SLUG`) */
    slug: text("slug").notNull(),
    /** set for an MSP's client organisation: the MSP organisation that manages it */
    parentId: text("parent_id").references((): AnySQLiteColumn => organizations.id, { onDelete: "restrict" }),
    /** billing plan key: essentials | growth | scale */
    plan: text("plan").notNull().default("growth"),
    /** billing state: trialing | active | past_due | canceled | none (self-hosted, no billing) */
    planStatus: text("plan_status").notNull().default("none"),
    trialEndsAt: timestamp("trial_ends_at"),
    /** random token that addresses this organisation's report mailbox: <token>@<smtp-domain> */
    reportToken: text("report_token").notNull().$defaultFn(() => crypto.randomUUID().replace(/-/g, "").slice(0, 16)),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("organizations_slug_unique").on(t.slug), uniqueIndex("organizations_report_token_unique").on(t.reportToken), index("organizations_parent_idx").on(t.parentId)],
);

export const users = sqliteTable(
  "users",
  {
    id: id(),
    name: text("name").notNull(),
    /** stored lower-cased: emails are case-insensitive and unique */
    email: text("email").notNull(),
    /** argon2id; null until the user sets one (e.g. an account made by the trial flow) */
    passwordHash: text("password_hash"),
    /** when the user proved they read mail at this address; product mail waits until then */
    emailVerifiedAt: timestamp("email_verified_at"),
    /** two-factor sign-in (TOTP): the secret sealed with the server key; set from enable until disable */
    totpSecret: text("totp_secret"),
    /** a secret from /2fa/setup not yet confirmed with a code (sealed too) */
    totpPendingSecret: text("totp_pending_secret"),
    totpEnabledAt: timestamp("totp_enabled_at"),
    /** the last 30-second step a code was accepted for: a code is good once */
    totpLastStep: integer("totp_last_step"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email)],
);

export const memberships = sqliteTable(
  "memberships",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: ROLES }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("memberships_org_user_unique").on(t.orgId, t.userId), index("memberships_user_idx").on(t.userId)],
);

/** Signed-in user sessions. Only a SHA-256 of the cookie token is stored. */
export const sessions = sqliteTable(
  "sessions",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    /** the organisation the user is acting in */
    currentOrgId: text("current_org_id").references(() => organizations.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    lastSeenAt: integer("last_seen_at", { mode: "timestamp" }).notNull().default(sql`(unixepoch())`),
    expiresAt: integer("expires_at", { mode: "timestamp" }).notNull(),
  },
  (t) => [uniqueIndex("sessions_token_hash_unique").on(t.tokenHash), index("sessions_user_idx").on(t.userId)],
);
