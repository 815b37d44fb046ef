import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { VERSION } from "../../version";

/** Liveness and readiness: the database answers a query. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia({ name: "health" }).get("/healthz", ({ set }) => {
    let db = "ok";
    try {
      deps.store.sqlite.query("SELECT 1").get();
    } catch {
      db = "error";
      set.status = 503;
    }
    return { status: db === "ok" ? "ok" : "degraded", db, version: VERSION };
  });
}
