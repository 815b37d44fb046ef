import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { reportAddress } from "../mailin/service";
import { parseInput } from "../../http/errors";
import { threatCountriesQuerySchema } from "./contract";
import { dashboardStats, listTasks, listThreats, threatCountries } from "./service";

/** Dashboard stats, derived tasks and the last day's threats of the current organisation (SPEC §7). */
export function dashboardRoutes(deps: AppDeps) {
  return new Elysia({ name: "dashboard" })
    .use(access(deps))
    .get("/api/dashboard/stats", ({ ctx }) => dashboardStats(ctx), { org: "read" })
    .get("/api/tasks", async ({ ctx }) => listTasks(ctx, (await reportAddress(ctx)).address), { org: "read" })
    .get("/api/ip-threats", ({ ctx }) => listThreats(ctx), { org: "read" })
    .get("/api/threats/countries", ({ ctx, query }) => threatCountries(ctx, parseInput(threatCountriesQuerySchema, query).range), { org: "read" });
}
