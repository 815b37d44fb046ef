import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { requireActor } from "../../http/tenant";
import { reportAddress } from "../mailin/service";
import { dashboardStats, listTasks, listThreats } from "./service";

/** Dashboard stats, derived tasks and the last day's threats of the current organisation (SPEC §7). */
export function dashboardRoutes(deps: AppDeps) {
  const { db, sqlite } = deps.store;
  return new Elysia({ name: "dashboard" })
    .get("/api/dashboard/stats", ({ request }) => {
      const { orgId } = requireActor(db, request, "read");
      return dashboardStats(sqlite, orgId, deps.now());
    })
    .get("/api/tasks", ({ request }) => {
      const { orgId } = requireActor(db, request, "read");
      return listTasks(sqlite, orgId, deps.now(), reportAddress(deps, orgId).address);
    })
    .get("/api/ip-threats", ({ request }) => {
      const { orgId } = requireActor(db, request, "read");
      return listThreats(sqlite, orgId, deps.now());
    });
}
