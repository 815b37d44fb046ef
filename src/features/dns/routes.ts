import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** dns routes (filled in by the issue that builds this feature). */
export function dnsRoutes(_deps: AppDeps) {
  return new Elysia({ name: "dns" });
}
