import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { roleAllows } from "../../lib/permissions";
import { settingsSchema, type SettingsView } from "./contract";
import { clientsOf } from "../orgs/audience";
import { getSettings, saveSettings, type StoredSettings } from "./service";
import { auditRequest } from "../audit/service";
import type { OrgContext } from "../../http/access";

const RETENTION_KEYS = new Set(["retentionAggregateDays", "retentionFailureDays"]);

/** One audit record for the fields that changed (names and new values); retention has its own action. */
async function auditSettingsChange(ctx: OrgContext, request: Request, before: StoredSettings, after: StoredSettings): Promise<void> {
  const changed = (Object.keys(after) as (keyof StoredSettings)[]).filter((k) => k !== "updatedAt" && before[k] !== after[k]);
  const retention = changed.filter((k) => RETENTION_KEYS.has(k));
  const others = changed.filter((k) => !RETENTION_KEYS.has(k));
  if (others.length) await auditRequest(ctx, request, "settings.changed", { data: Object.fromEntries(others.map((k) => [k, after[k]])) });
  if (retention.length) await auditRequest(ctx, request, "retention.changed", { data: Object.fromEntries(retention.map((k) => [k, { from: before[k], to: after[k] }])) });
}

const view = (s: StoredSettings, canEdit: boolean, hasClients: boolean): SettingsView => ({ ...s, updatedAt: s.updatedAt?.toISOString() ?? null, canEdit, hasClients });

/** Settings of the current organisation: everyone in it reads, admins and owners change. */
export function settingsRoutes(deps: AppDeps) {
  return new Elysia({ name: "settings" })
    .use(access(deps))
    .get("/api/settings", async ({ ctx }) => view(await getSettings(ctx), roleAllows(ctx.actor.role, "settings:manage"), (await clientsOf(ctx, ctx.actor.orgId)).length > 0), { org: "read" })
    .put(
      "/api/settings",
      async ({ ctx, body, request }) => {
        const input = parseInput(settingsSchema, body);
        const before = await getSettings(ctx);
        const saved = await saveSettings(ctx, input);
        await auditSettingsChange(ctx, request, before, saved);
        return view(saved, true, (await clientsOf(ctx, ctx.actor.orgId)).length > 0);
      },
      { org: "settings:manage" },
    );
}
