import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** dashboard routes (filled in by the issue that builds this feature). */
export function dashboardRoutes(_deps: AppDeps) {
  return new Elysia({ name: "dashboard" });
}
