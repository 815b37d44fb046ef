import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { buildOpenApi, type RouteInfo } from "./document";
import { DOCS_CSS, DOCS_HTML, DOCS_JS } from "./docs-page";

/** GET /api/openapi.json (the OpenAPI 3.1 document of `routes()`, the app's routes) and /api/docs. */
export function openapiRoutes(deps: AppDeps, routes: () => readonly RouteInfo[]) {
  let document: string | null = null;
  const asset = (body: string, type: string) => new Response(body, { headers: { "content-type": type, "cache-control": "no-cache" } });
  return new Elysia({ name: "openapi" })
    .use(access(deps))
    .get("/api/openapi.json", () => asset((document ??= JSON.stringify(buildOpenApi(routes()))), "application/json; charset=utf-8"), { public: true })
    .get("/api/docs", () => asset(DOCS_HTML, "text/html; charset=utf-8"), { public: true })
    .get("/api/docs/docs.js", () => asset(DOCS_JS, "text/javascript; charset=utf-8"), { public: true })
    .get("/api/docs/docs.css", () => asset(DOCS_CSS, "text/css; charset=utf-8"), { public: true });
}
