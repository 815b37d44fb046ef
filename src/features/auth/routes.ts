import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** auth routes (filled in by the issue that builds this feature). */
export function authRoutes(_deps: AppDeps) {
  return new Elysia({ name: "auth" });
}
