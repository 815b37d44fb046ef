/**
 * Who owns which table. Each feature under `src/features/<name>/` owns the queries on its own
 * tables; another feature that needs those rows calls a verb the owner exports (for example
 * `userById` from `features/auth/service.ts`, `setBillingState` from `features/orgs/service.ts`).
 * Shared infrastructure in `src/db/` (job leases) is owned by `db`.
 *
 * `src/db/ownership.test.ts` reads every feature file and fails, naming file:line and the owner
 * to call instead, when one touches a table owned by another feature — through `store.t`, an
 * import of the schema, or raw SQL naming the table — and when a file under `src/features` or
 * `src/lib` imports `bun:sqlite` other than the SQLite adapters listed below. A new table must be
 * added here (the test fails for a table without an owner).
 */
import type * as schema from "./schema";

/** The features that own tables, and `db` for shared infrastructure. */
export type Owner = "admin" | "alerts" | "auth" | "billing" | "contact" | "domains" | "mailin" | "orgs" | "reports" | "settings" | "tokens" | "audit" | "sso" | "branding" | "portfolio" | "db";

type TableNames = { [K in keyof typeof schema as (typeof schema)[K] extends { $inferSelect: unknown } ? K : never]: true };

/** Every table of the schema (by its export name) and the feature that owns it. */
export const TABLE_OWNERS: { [K in keyof TableNames]: Owner } = {
  // auth: accounts, sign-in and what proves who someone is
  users: "auth",
  sessions: "auth",
  passwordTokens: "auth",
  emailVerificationTokens: "auth",
  authThrottle: "auth",
  recoveryCodes: "auth",
  pendingLogins: "auth",
  // orgs: organisations (their billing plan columns too, written through `setBillingState`), members, invitations
  organizations: "orgs",
  memberships: "orgs",
  invitations: "orgs",
  // domains: the monitored domains and their DNS record history
  domains: "domains",
  domainRecordHistory: "domains",
  // reports: stored reports, their daily roll-ups and sender verdicts
  aggregateReports: "reports",
  aggregateRecords: "reports",
  failureReports: "reports",
  tlsReports: "reports",
  dailyDomainStats: "reports",
  dailySenderStats: "reports",
  dailyCountryStats: "reports",
  dkimSelectorsSeen: "reports",
  sourceNames: "reports",
  senderMarks: "reports",
  rollupVersions: "reports",
  // settings: one row of preferences per organisation (alert thresholds included)
  organizationSettings: "settings",
  organizationBranding: "branding",
  // portfolio: an MSP's client report contacts (the weekly report to a client's outside contacts)
  clientReportSettings: "portfolio",
  // mailin: the IMAP mailboxes reports are fetched from
  reportMailboxes: "mailin",
  oauthMailboxes: "mailin",
  // billing: the payment provider's customer link and the webhook events already handled
  billingAccounts: "billing",
  stripeEvents: "billing",
  // tokens: the organisations' API tokens
  apiTokens: "tokens",
  // audit: the organisations' audit log (append-only)
  auditLog: "audit",
  // sso: the organisations' OpenID Connect identity providers
  ssoConnections: "sso",
  // contact: the contact form's submissions
  contactSubmissions: "contact",
  // admin: the operator console's own accounts and sessions
  adminUsers: "admin",
  adminSessions: "admin",
  // alerts: events, their conditions, channels and deliveries
  orgEvents: "alerts",
  alertConditions: "alerts",
  dnsSnapshots: "alerts",
  alertChannels: "alerts",
  alertDeliveries: "alerts",
  deliveryAttempts: "alerts",
  eventReads: "alerts",
  // db: scheduled jobs' leases (src/db/leases.ts)
  jobLeases: "db",
};

/**
 * The only files under `src/features` and `src/lib` that may import `bun:sqlite`: the SQLite
 * adapters of a feature's store (prepared statements on the ingest hot path).
 */
export const SQLITE_ADAPTERS: readonly string[] = ["src/features/reports/store.sqlite.ts", "src/features/reports/sqlite-rows.ts"];
