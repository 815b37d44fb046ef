/**
 * The health answer (liveness and readiness: the database answers a query), shared by the
 * health route and the start-up handler that answers /healthz before the app has loaded. Loads
 * neither Elysia nor any feature.
 */
import { sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import { VERSION } from "../../version";

export interface HealthAnswer {
  status: "ok" | "degraded";
  db: "ok" | "error";
  version: string;
}

/** The body of GET /healthz; answered with 200 when the database is ok, else 503. */
export async function checkHealth(store: Pick<StoreCore, "rows">): Promise<HealthAnswer> {
  try {
    await store.rows(sql`SELECT 1`);
    return { status: "ok", db: "ok", version: VERSION };
  } catch {
    return { status: "degraded", db: "error", version: VERSION };
  }
}
