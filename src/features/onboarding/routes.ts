import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { reportPathQuerySchema } from "./contract";
import { dismissChecklist, onboarding, reportPathOf } from "./service";

/** The dashboard's getting-started checklist and the report path of a domain (tasks, wizards, domain page). */
export function onboardingRoutes(deps: AppDeps) {
  return new Elysia({ name: "onboarding" })
    .use(access(deps))
    .get("/api/onboarding", ({ ctx }) => onboarding(ctx), { org: "read" })
    .post("/api/onboarding/dismiss", ({ ctx }) => dismissChecklist(ctx), { org: "read" })
    .get("/api/report-path", ({ ctx, query }) => reportPathOf(ctx, parseInput(reportPathQuerySchema, query).domain), { org: "read" });
}
