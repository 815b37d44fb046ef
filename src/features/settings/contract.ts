/** Settings page (SPEC §2): the schema the server validates with and the form uses. */
import { z } from "zod";

export const MIN_CACHE_TTL_SECONDS = 60;
export const MAX_CACHE_TTL_SECONDS = 86_400;
export const DEFAULT_CACHE_TTL_SECONDS = 3600;

const TTL_MESSAGE = `Enter a cache TTL from ${MIN_CACHE_TTL_SECONDS} to ${MAX_CACHE_TTL_SECONDS} seconds`;
const EMAIL = /^[^\s@,;]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;

/** An optional report address: empty, or an email (a leading "mailto:" is accepted and dropped). */
const reportAddress = (label: string) =>
  z
    .string()
    .trim()
    .max(254, `The ${label} address is too long`)
    .transform((v) => v.replace(/^mailto:/i, ""))
    .refine((v) => v === "" || EMAIL.test(v), `Enter the ${label} address as an email, e.g. dmarc@example.com`);

/** Retention (days): aggregate records at least 30, failure reports at least 7; at most ten years. */
export const RETENTION_LIMITS = { aggregate: { min: 30, max: 3650, default: 400 }, failure: { min: 7, max: 3650, default: 90 } } as const;
const AGGREGATE_RETENTION_MESSAGE = `Keep aggregate reports ${RETENTION_LIMITS.aggregate.min} to ${RETENTION_LIMITS.aggregate.max} days`;
const FAILURE_RETENTION_MESSAGE = `Keep failure reports ${RETENTION_LIMITS.failure.min} to ${RETENTION_LIMITS.failure.max} days`;

/** An optional whole number of days within `limits`, `message` when it is not. */
const retentionDays = (limits: { min: number; max: number }, message: string) => z.number({ error: message }).int(message).min(limits.min, message).max(limits.max, message).optional();

const DIGEST_DAY_MESSAGE = "Choose the digest's day of the week (0 Sunday to 6 Saturday)";
const DIGEST_HOUR_MESSAGE = "Choose the digest's hour, 0 to 23 (UTC)";
/** Days of the week as the digest schedule stores them (0 Sunday … 6 Saturday, like Date.getUTCDay). */
export const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

export const settingsSchema = z.object({
  organizationName: z.string().trim().min(2, "Organization name must be at least 2 characters").max(100, "Organization name must be at most 100 characters"),
  contactEmail: z
    .string()
    .trim()
    .max(254, "Please enter a valid email address")
    .refine((v) => v === "" || EMAIL.test(v), "Please enter a valid email address"),
  emailNotifications: z.boolean(),
  dmarcRua: reportAddress("aggregate report (rua)"),
  dmarcRuf: reportAddress("failure report (ruf)"),
  autoProcessReports: z.boolean(),
  dnsCaching: z.boolean(),
  cacheTtlSeconds: z.number({ error: TTL_MESSAGE }).int(TTL_MESSAGE).min(MIN_CACHE_TTL_SECONDS, TTL_MESSAGE).max(MAX_CACHE_TTL_SECONDS, TTL_MESSAGE),
  realtimeThreatMonitoring: z.boolean(),
  complianceAlerts: z.boolean(),
  // the weekly digest; optional so a client that sends only the fields above keeps the stored schedule
  digestEnabled: z.boolean().optional(),
  digestDay: z.number({ error: DIGEST_DAY_MESSAGE }).int(DIGEST_DAY_MESSAGE).min(0, DIGEST_DAY_MESSAGE).max(6, DIGEST_DAY_MESSAGE).optional(),
  digestHour: z.number({ error: DIGEST_HOUR_MESSAGE }).int(DIGEST_HOUR_MESSAGE).min(0, DIGEST_HOUR_MESSAGE).max(23, DIGEST_HOUR_MESSAGE).optional(),
  digestIncludeClients: z.boolean().optional(),
  // retention; optional like the digest fields (absent: the stored values stay)
  retentionAggregateDays: retentionDays(RETENTION_LIMITS.aggregate, AGGREGATE_RETENTION_MESSAGE),
  retentionFailureDays: retentionDays(RETENTION_LIMITS.failure, FAILURE_RETENTION_MESSAGE),
});

export type SettingsInput = z.input<typeof settingsSchema>;
export type Settings = z.output<typeof settingsSchema>;

/** GET /api/settings: the settings, whether the signed-in user may change them, and when they last were. */
export interface SettingsView extends Omit<Settings, keyof DigestSchedule | keyof Retention>, DigestSchedule, Retention {
  canEdit: boolean;
  /** the organisation manages client organisations (MSP): the digest may cover them */
  hasClients: boolean;
  updatedAt: string | null;
}

/** When the weekly digest goes out (UTC) and what it covers. */
export interface DigestSchedule {
  digestEnabled: boolean;
  digestDay: number;
  digestHour: number;
  digestIncludeClients: boolean;
}

/** How long the organisation's reports are kept (days). */
export interface Retention {
  retentionAggregateDays: number;
  retentionFailureDays: number;
}

export const DEFAULT_RETENTION: Retention = { retentionAggregateDays: RETENTION_LIMITS.aggregate.default, retentionFailureDays: RETENTION_LIMITS.failure.default };

export const DEFAULT_DIGEST: DigestSchedule = { digestEnabled: true, digestDay: 1, digestHour: 8, digestIncludeClients: false };

/** The preference defaults "Reset to Defaults" restores (the organisation's name and contact stay). */
export const DEFAULT_PREFERENCES = {
  emailNotifications: true,
  dmarcRua: "",
  dmarcRuf: "",
  autoProcessReports: true,
  dnsCaching: true,
  cacheTtlSeconds: DEFAULT_CACHE_TTL_SECONDS,
  realtimeThreatMonitoring: true,
  complianceAlerts: true,
  ...DEFAULT_DIGEST,
} satisfies Omit<Settings, "organizationName" | "contactEmail">;
