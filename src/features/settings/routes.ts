import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** settings routes (filled in by the issue that builds this feature). */
export function settingsRoutes(_deps: AppDeps) {
  return new Elysia({ name: "settings" });
}
