import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { checkHealth } from "./check";

/** Liveness and readiness: the database answers a query. */
export function healthRoutes(deps: AppDeps) {
  return new Elysia({ name: "health" }).use(access(deps)).get(
    "/healthz",
    async ({ ctx, set }) => {
      const answer = await checkHealth(ctx.store);
      if (answer.db !== "ok") set.status = 503;
      return answer;
    },
    { public: true },
  );
}
