import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { parseInput } from "../../http/errors";
import { requireActor } from "../../http/tenant";
import { roleAllows } from "../../lib/permissions";
import { settingsSchema, type SettingsView } from "./contract";
import { getSettings, saveSettings } from "./service";

type Stored = ReturnType<typeof getSettings>;
const view = (s: Stored, canEdit: boolean): SettingsView => ({ ...s, updatedAt: s.updatedAt?.toISOString() ?? null, canEdit });

/** Settings of the current organisation: everyone in it reads, admins and owners change. */
export function settingsRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Elysia({ name: "settings" })
    .get("/api/settings", ({ request }) => {
      const { orgId, role } = requireActor(db, request, "read");
      return view(getSettings(db, orgId), roleAllows(role, "settings:manage"));
    })
    .put("/api/settings", ({ request, body }) => {
      const { orgId } = requireActor(db, request, "settings:manage");
      const input = parseInput(settingsSchema, body);
      return view(saveSettings(db, orgId, input, deps.now()), true);
    });
}
