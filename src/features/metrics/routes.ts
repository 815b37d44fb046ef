import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { sql } from "drizzle-orm";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { EXPOSITION_CONTENT_TYPE } from "../../lib/metrics";
import { registry } from "./registry";

/** The route pattern a request matched, for the HTTP metrics (never the raw path). */
const matched = new WeakMap<Request, string>();

/** Records each request's route pattern as Elysia matched it; the handler reads it back. */
export function routeRecorder() {
  return new Elysia().onTransform({ as: "global" }, ({ request, route }) => {
    matched.set(request, route);
  });
}

/** The pattern of the route that answered `request`, or "unmatched". */
export function routeOf(request: Request): string {
  return matched.get(request) ?? "unmatched";
}

/** The database's size in bytes (SQLite: the main file's pages; PostgreSQL: the database). */
async function databaseSize(deps: AppDeps): Promise<number | null> {
  try {
    if (deps.store.dialect === "postgres") {
      const [row] = await deps.store.rows<{ size: string | number }>(sql`SELECT pg_database_size(current_database()) AS size`);
      return Number(row?.size ?? 0);
    }
    const [row] = await deps.store.rows<{ size: number }>(sql`SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()`);
    return Number(row?.size ?? 0);
  } catch {
    return null;
  }
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * GET /metrics: Prometheus text format 0.0.4, this node's figures. Off (404) unless --metrics or
 * --metrics-token; with a token, only for `Authorization: Bearer <token>` (401 otherwise).
 */
export function metricsRoutes(deps: AppDeps) {
  return new Elysia({ name: "metrics" }).use(access(deps)).get(
    "/metrics",
    async ({ request }) => {
      const token = deps.config.metricsToken;
      if (!deps.config.metrics && !token) {
        return new Response("Metrics are off: start the server with --metrics or --metrics-token.\n", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
      }
      if (token) {
        const header = request.headers.get("authorization") ?? "";
        const given = /^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? "";
        if (!sameToken(given, token)) {
          return new Response("Send the metrics token as Authorization: Bearer <token>.\n", { status: 401, headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' } });
        }
      }
      const size = await databaseSize(deps);
      const dbLines =
        size === null
          ? ""
          : `# HELP dmarcwarden_database_size_bytes Size of the database (SQLite file or PostgreSQL database) in bytes.\n# TYPE dmarcwarden_database_size_bytes gauge\ndmarcwarden_database_size_bytes{dialect="${deps.store.dialect}"} ${size}\n`;
      return new Response((await registry.render()) + dbLines, { headers: { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" } });
    },
    { public: true },
  );
}
