import { boolean, integer, pgTable, text } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { epoch } from "./columns";

export const organizationSettings = pgTable("organization_settings", {
  orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
  organizationName: text("organization_name"),
  contactEmail: text("contact_email"),
  emailNotifications: boolean("email_notifications").notNull().default(true),
  dmarcRua: text("dmarc_rua"),
  dmarcRuf: text("dmarc_ruf"),
  autoProcessReports: boolean("auto_process_reports").notNull().default(true),
  dnsCaching: boolean("dns_caching").notNull().default(true),
  cacheTtlSeconds: integer("cache_ttl_seconds").notNull().default(3600),
  realtimeThreatMonitoring: boolean("realtime_threat_monitoring").notNull().default(true),
  complianceAlerts: boolean("compliance_alerts").notNull().default(true),
  digestEnabled: boolean("digest_enabled").notNull().default(true),
  digestDay: integer("digest_day").notNull().default(1),
  digestHour: integer("digest_hour").notNull().default(8),
  digestIncludeClients: boolean("digest_include_clients").notNull().default(false),
  alertThresholds: text("alert_thresholds"),
  alertsPerWindow: integer("alerts_per_window").notNull().default(10),
  requireTwoFactor: boolean("require_two_factor").notNull().default(false),
  retentionAggregateDays: integer("retention_aggregate_days").notNull().default(400),
  retentionFailureDays: integer("retention_failure_days").notNull().default(90),
  onboardingDismissedAt: epoch("onboarding_dismissed_at"),
  updatedAt: epoch("updated_at").notNull().$defaultFn(() => new Date()),
});
