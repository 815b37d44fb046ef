/** The organisation's alert thresholds: its own values where set (Settings), the defaults otherwise. */
import type { OrgContext } from "../../http/access";
import { alertThresholds, alertThresholdsSchema, DEFAULT_ALERT_THRESHOLDS, type AlertThresholds } from "../../lib/alerts/report-thresholds";
import type { WithStore } from "../auth/sessions";
import { ALERT_LIMIT, ALERT_WINDOW_MINUTES } from "../../lib/alerts/volume";
import type { AlertLimitView } from "./contract";
import { alertSettingsOf, saveAlertsPerWindow, saveAlertThresholds } from "../settings/service";

/** The thresholds in force for an organisation (a stored value that no longer validates is ignored). */
export async function thresholdsOf(ctx: WithStore, orgId: string): Promise<{ thresholds: AlertThresholds; overrides: Partial<AlertThresholds> }> {
  const { thresholdsJson } = await alertSettingsOf(ctx, orgId);
  let overrides: Partial<AlertThresholds> = {};
  if (thresholdsJson) {
    try {
      const parsed = alertThresholdsSchema.safeParse(JSON.parse(thresholdsJson));
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
  const json = Object.keys(overrides).length ? JSON.stringify(overrides) : null;
  await saveAlertThresholds(ctx, ctx.actor.orgId, json, ctx.now());
  return getThresholds(ctx);
}

export async function getAlertLimit(ctx: OrgContext): Promise<AlertLimitView> {
  const { alertsPerWindow } = await alertSettingsOf(ctx, ctx.actor.orgId);
  return { perWindow: alertsPerWindow, windowMinutes: ALERT_WINDOW_MINUTES, default: ALERT_LIMIT.default, min: ALERT_LIMIT.min, max: ALERT_LIMIT.max };
}

/** Sets the organisation's limit (validated by alertLimitSchema); returns it and what it was. */
export async function saveAlertLimit(ctx: OrgContext, perWindow: number): Promise<{ view: AlertLimitView; before: number }> {
  const before = (await alertSettingsOf(ctx, ctx.actor.orgId)).alertsPerWindow;
  if (before !== perWindow) await saveAlertsPerWindow(ctx, ctx.actor.orgId, perWindow, ctx.now());
  return { view: await getAlertLimit(ctx), before };
}
