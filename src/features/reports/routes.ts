import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** reports routes (filled in by the issue that builds this feature). */
export function reportsRoutes(_deps: AppDeps) {
  return new Elysia({ name: "reports" });
}
