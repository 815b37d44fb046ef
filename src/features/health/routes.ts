import { Elysia } from "elysia";
import { sql } from "drizzle-orm";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { VERSION } from "../../version";

/** Liveness and readiness: the database answers a query. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia({ name: "health" }).use(access(deps)).get(
    "/healthz",
    async ({ ctx, set }) => {
      let db = "ok";
      try {
        await ctx.store.rows(sql`SELECT 1`);
      } catch {
        db = "error";
        set.status = 503;
      }
      return { status: db === "ok" ? "ok" : "degraded", db, version: VERSION };
    },
    { public: true },
  );
}
