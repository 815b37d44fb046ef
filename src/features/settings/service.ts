/** Organisation settings: one row per organisation, defaults until first saved. */
import { eq, inArray } from "drizzle-orm";
import type { OrgContext, ServiceContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import type { CachePolicy } from "../dns/resolver";
import type { WithStore } from "../auth/sessions";
import { syncEmailNotifications } from "../alerts/channels";
import { firstOwnerEmail } from "../orgs/members";
import { organizationName } from "../orgs/service";
import { alertLimitOf } from "../../lib/alerts/volume";
import { DEFAULT_DIGEST, DEFAULT_PREFERENCES, DEFAULT_RETENTION, type DigestSchedule, type Retention, type Settings } from "./contract";

export type StoredSettings = Settings & DigestSchedule & Retention & { updatedAt: Date | null };

/** What an organisation without a saved row sees: its own name, its first owner's email, the default preferences. */
async function defaultSettings(ctx: ServiceContext, orgId: string): Promise<Settings & DigestSchedule & Retention> {
  const name = await organizationName(ctx, orgId);
  if (name === null) throw new NotFoundError("This organization no longer exists.");
  return { organizationName: name, contactEmail: (await firstOwnerEmail(ctx, orgId)) ?? "", ...DEFAULT_PREFERENCES, ...DEFAULT_RETENTION };
}

async function settingsOf(ctx: ServiceContext, orgId: string): Promise<StoredSettings> {
  const { organizationSettings } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(organizationSettings).where(eq(organizationSettings.orgId, orgId)).limit(1);
  if (!row) return { ...(await defaultSettings(ctx, orgId)), updatedAt: null };
  const fallback = row.organizationName && row.contactEmail !== null ? null : await defaultSettings(ctx, orgId);
  return {
    organizationName: row.organizationName ?? fallback!.organizationName,
    contactEmail: row.contactEmail ?? fallback!.contactEmail,
    emailNotifications: row.emailNotifications,
    dmarcRua: row.dmarcRua ?? "",
    dmarcRuf: row.dmarcRuf ?? "",
    autoProcessReports: row.autoProcessReports,
    dnsCaching: row.dnsCaching,
    cacheTtlSeconds: row.cacheTtlSeconds,
    realtimeThreatMonitoring: row.realtimeThreatMonitoring,
    complianceAlerts: row.complianceAlerts,
    digestEnabled: row.digestEnabled,
    digestDay: row.digestDay,
    digestHour: row.digestHour,
    digestIncludeClients: row.digestIncludeClients,
    retentionAggregateDays: row.retentionAggregateDays,
    retentionFailureDays: row.retentionFailureDays,
    updatedAt: row.updatedAt,
  };
}

/** The current organisation's settings. */
export function getSettings(ctx: OrgContext): Promise<StoredSettings> {
  return settingsOf(ctx, ctx.actor.orgId);
}

export async function saveSettings(ctx: OrgContext, input: Settings): Promise<StoredSettings> {
  const { organizationSettings } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  const values = { ...input, updatedAt: ctx.now() };
  const owner = input.contactEmail ? null : await firstOwnerEmail(ctx, orgId);
  await ctx.store.write(async (tx) => {
    await tx.insert(organizationSettings).values({ orgId, ...values }).onConflictDoUpdate({ target: organizationSettings.orgId, set: values });
    // "Email notifications" is the organisation's email alert channel, on or off
    await syncEmailNotifications(ctx, orgId, input.emailNotifications, [input.contactEmail || owner || ""].filter(Boolean));
  });
  return settingsOf(ctx, orgId);
}

/**
 * Every organisation's retention (days) that differs from nothing: organisations without a saved
 * row keep the defaults, given as `defaults`; the map holds the saved ones by organisation id.
 */
export async function savedRetention(ctx: Pick<ServiceContext, "store">): Promise<{ defaults: Retention; byOrg: Map<string, Retention> }> {
  const { organizationSettings: s } = ctx.store.t;
  const rows = await ctx.store.db.select({ orgId: s.orgId, retentionAggregateDays: s.retentionAggregateDays, retentionFailureDays: s.retentionFailureDays }).from(s);
  return { defaults: { ...DEFAULT_RETENTION }, byOrg: new Map(rows.map(({ orgId, ...r }) => [orgId, r])) };
}

/** The organisations' weekly digest schedules (defaults for those never saved), by organisation id. */
export async function digestSchedulesOf(ctx: Pick<ServiceContext, "store">, orgIds: string[]): Promise<Map<string, DigestSchedule>> {
  const { organizationSettings: s } = ctx.store.t;
  const rows = orgIds.length
    ? await ctx.store.db
        .select({ orgId: s.orgId, digestEnabled: s.digestEnabled, digestDay: s.digestDay, digestHour: s.digestHour, digestIncludeClients: s.digestIncludeClients })
        .from(s)
        .where(inArray(s.orgId, orgIds))
    : [];
  const byOrg = new Map(rows.map(({ orgId, ...schedule }) => [orgId, schedule]));
  return new Map(orgIds.map((id) => [id, byOrg.get(id) ?? { ...DEFAULT_DIGEST }]));
}

/** The organisation's DNS cache policy (Settings: DNS caching toggle and cache TTL), defaults until saved. */
export async function dnsCachePolicy(ctx: Pick<ServiceContext, "store">, orgId: string): Promise<Required<CachePolicy>> {
  const { organizationSettings } = ctx.store.t;
  const [row] = await ctx.store.db
    .select({ dnsCaching: organizationSettings.dnsCaching, cacheTtlSeconds: organizationSettings.cacheTtlSeconds })
    .from(organizationSettings)
    .where(eq(organizationSettings.orgId, orgId))
    .limit(1);
  return { cache: row?.dnsCaching ?? DEFAULT_PREFERENCES.dnsCaching, maxTtl: row?.cacheTtlSeconds ?? DEFAULT_PREFERENCES.cacheTtlSeconds, refresh: false };
}

/** What alerts need of an organisation's settings: its alert thresholds (stored JSON), Settings' alert toggles and the name it goes by. Defaults until saved. */
export interface AlertSettings {
  thresholdsJson: string | null;
  complianceAlerts: boolean;
  realtimeThreatMonitoring: boolean;
  /** the name saved in Settings, or null (the organisation's own name applies) */
  organizationName: string | null;
  /** outbound alerts per channel in any window (src/lib/alerts/volume.ts) */
  alertsPerWindow: number;
}

export async function alertSettingsOf(ctx: WithStore, orgId: string): Promise<AlertSettings> {
  const { organizationSettings: s } = ctx.store.t;
  const [row] = await ctx.store.db
    .select({ thresholdsJson: s.alertThresholds, complianceAlerts: s.complianceAlerts, realtimeThreatMonitoring: s.realtimeThreatMonitoring, organizationName: s.organizationName, alertsPerWindow: s.alertsPerWindow })
    .from(s)
    .where(eq(s.orgId, orgId))
    .limit(1);
  return {
    thresholdsJson: row?.thresholdsJson ?? null,
    complianceAlerts: row?.complianceAlerts ?? DEFAULT_PREFERENCES.complianceAlerts,
    realtimeThreatMonitoring: row?.realtimeThreatMonitoring ?? DEFAULT_PREFERENCES.realtimeThreatMonitoring,
    organizationName: row?.organizationName || null,
    alertsPerWindow: alertLimitOf(row?.alertsPerWindow),
  };
}

/** Stores the organisation's limit of outbound alerts per channel and window. */
export async function saveAlertsPerWindow(ctx: WithStore, orgId: string, perWindow: number, at: Date): Promise<void> {
  const { organizationSettings } = ctx.store.t;
  await ctx.store.write((tx) =>
    tx
      .insert(organizationSettings)
      .values({ orgId, alertsPerWindow: perWindow, updatedAt: at })
      .onConflictDoUpdate({ target: organizationSettings.orgId, set: { alertsPerWindow: perWindow, updatedAt: at } }),
  );
}

/** Stores the organisation's alert threshold overrides (JSON; null: the defaults again). */
export async function saveAlertThresholds(ctx: WithStore, orgId: string, json: string | null, at: Date): Promise<void> {
  const { organizationSettings } = ctx.store.t;
  await ctx.store.write((tx) =>
    tx
      .insert(organizationSettings)
      .values({ orgId, alertThresholds: json, updatedAt: at })
      .onConflictDoUpdate({ target: organizationSettings.orgId, set: { alertThresholds: json, updatedAt: at } }),
  );
}
