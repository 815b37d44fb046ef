/** The organisation's alert thresholds: its own values where set (Settings), the defaults otherwise. */
import { eq } from "drizzle-orm";
import type { OrgContext, ServiceContext } from "../../http/access";
import { alertThresholds, alertThresholdsSchema, DEFAULT_ALERT_THRESHOLDS, type AlertThresholds } from "../../lib/alerts/report-thresholds";

/** The thresholds in force for an organisation (a stored value that no longer validates is ignored). */
export async function thresholdsOf(ctx: Pick<ServiceContext, "store">, orgId: string): Promise<{ thresholds: AlertThresholds; overrides: Partial<AlertThresholds> }> {
  const { organizationSettings } = ctx.store.t;
  const [row] = await ctx.store.db.select({ json: organizationSettings.alertThresholds }).from(organizationSettings).where(eq(organizationSettings.orgId, orgId)).limit(1);
  let overrides: Partial<AlertThresholds> = {};
  if (row?.json) {
    try {
      const parsed = alertThresholdsSchema.safeParse(JSON.parse(row.json));
      if (parsed.success) overrides = parsed.data;
    } catch {}
  }
  return { thresholds: alertThresholds(overrides), overrides };
}

export interface ThresholdsView {
  thresholds: AlertThresholds;
  overrides: Partial<AlertThresholds>;
  defaults: AlertThresholds;
}

export async function getThresholds(ctx: OrgContext): Promise<ThresholdsView> {
  return { ...(await thresholdsOf(ctx, ctx.actor.orgId)), defaults: { ...DEFAULT_ALERT_THRESHOLDS } };
}

/** Replaces the organisation's overrides (an empty object: the defaults again). */
export async function saveThresholds(ctx: OrgContext, overrides: Partial<AlertThresholds>): Promise<ThresholdsView> {
  const { organizationSettings } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  const json = Object.keys(overrides).length ? JSON.stringify(overrides) : null;
  await ctx.store.write((tx) =>
    tx
      .insert(organizationSettings)
      .values({ orgId, alertThresholds: json, updatedAt: ctx.now() })
      .onConflictDoUpdate({ target: organizationSettings.orgId, set: { alertThresholds: json, updatedAt: ctx.now() } }),
  );
  return getThresholds(ctx);
}
