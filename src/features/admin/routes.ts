import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** admin routes (filled in by the issue that builds this feature). */
export function adminRoutes(_deps: AppDeps) {
  return new Elysia({ name: "admin" });
}
