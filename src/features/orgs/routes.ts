import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** orgs routes (filled in by the issue that builds this feature). */
export function orgsRoutes(_deps: AppDeps) {
  return new Elysia({ name: "orgs" });
}
