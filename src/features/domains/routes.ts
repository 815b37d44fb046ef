import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** domains routes (filled in by the issue that builds this feature). */
export function domainsRoutes(_deps: AppDeps) {
  return new Elysia({ name: "domains" });
}
