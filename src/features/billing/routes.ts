import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";

/** billing routes (filled in by the issue that builds this feature). */
export function billingRoutes(_deps: AppDeps) {
  return new Elysia({ name: "billing" });
}
