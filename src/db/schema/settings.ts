import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";

/** Per-organisation settings (SPEC §2 Settings page). One row per organisation. */
export const organizationSettings = sqliteTable("organization_settings", {
  orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  organizationName: text("organization_name"),
  contactEmail: text("contact_email"),
  emailNotifications: integer("email_notifications", { mode: "boolean" }).notNull().default(true),
  dmarcRua: text("dmarc_rua"),
  dmarcRuf: text("dmarc_ruf"),
  autoProcessReports: integer("auto_process_reports", { mode: "boolean" }).notNull().default(true),
  dnsCaching: integer("dns_caching", { mode: "boolean" }).notNull().default(true),
  cacheTtlSeconds: integer("cache_ttl_seconds").notNull().default(3600),
  realtimeThreatMonitoring: integer("realtime_threat_monitoring", { mode: "boolean" }).notNull().default(true),
  complianceAlerts: integer("compliance_alerts", { mode: "boolean" }).notNull().default(true),
  /** the weekly digest: on/off, day of week (0 Sunday … 6 Saturday) and hour (UTC) */
  digestEnabled: integer("digest_enabled", { mode: "boolean" }).notNull().default(true),
  digestDay: integer("digest_day").notNull().default(1),
  digestHour: integer("digest_hour").notNull().default(8),
  /** an MSP parent's digest also covers each of its client organisations (one mail) */
  digestIncludeClients: integer("digest_include_clients", { mode: "boolean" }).notNull().default(false),
  /** JSON object overriding the default alert thresholds; null: the defaults */
  alertThresholds: text("alert_thresholds"),
  /** outbound alerts per channel in any 10 minutes; more are held and sent as one summary */
  alertsPerWindow: integer("alerts_per_window").notNull().default(10),
  /** members must turn on two-factor sign-in before anything else (set by an owner) */
  requireTwoFactor: integer("require_two_factor", { mode: "boolean" }).notNull().default(false),
  /** retention: aggregate records (and their reports) older than this many days are deleted (minimum 30) */
  retentionAggregateDays: integer("retention_aggregate_days").notNull().default(400),
  /** retention: failure (forensic) reports older than this many days are deleted (they hold personal data) */
  retentionFailureDays: integer("retention_failure_days").notNull().default(90),
  /** when the dashboard's getting-started checklist was put away (once every step was done); null: shown */
  onboardingDismissedAt: integer("onboarding_dismissed_at", { mode: "timestamp" }),
  updatedAt: integer("updated_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date()),
});
