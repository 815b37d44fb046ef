import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { roleAllows } from "../../lib/permissions";
import { settingsSchema, type SettingsView } from "./contract";
import { clientsOf } from "../orgs/audience";
import { getSettings, saveSettings, type StoredSettings } from "./service";

const view = (s: StoredSettings, canEdit: boolean, hasClients: boolean): SettingsView => ({ ...s, updatedAt: s.updatedAt?.toISOString() ?? null, canEdit, hasClients });

/** Settings of the current organisation: everyone in it reads, admins and owners change. */
export function settingsRoutes(deps: AppDeps) {
  return new Elysia({ name: "settings" })
    .use(access(deps))
    .get("/api/settings", async ({ ctx }) => view(await getSettings(ctx), roleAllows(ctx.actor.role, "settings:manage"), (await clientsOf(ctx, ctx.actor.orgId)).length > 0), { org: "read" })
    .put(
      "/api/settings",
      async ({ ctx, body }) => {
        const input = parseInput(settingsSchema, body);
        return view(await saveSettings(ctx, input), true, (await clientsOf(ctx, ctx.actor.orgId)).length > 0);
      },
      { org: "settings:manage" },
    );
}
