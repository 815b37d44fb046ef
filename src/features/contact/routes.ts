import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** contact routes (filled in by the issue that builds this feature). */
export function contactRoutes(_deps: AppDeps) {
  return new Elysia({ name: "contact" });
}
