import { Elysia } from "elysia";
import type { AppDeps } from "./deps";
import { access } from "./http/access";
import { jsonError } from "./http/errors";
import { errorPlugin } from "./http/error-plugin";
import { addSecurityHeaders, securityPlugin } from "./http/security";
import { compressJson } from "./http/compress";
import { serveSpa } from "./http/spa";
import { adminRoutes } from "./features/admin/routes";
import { authRoutes } from "./features/auth/routes";
import { billingRoutes } from "./features/billing/routes";
import { contactRoutes } from "./features/contact/routes";
import { dashboardRoutes } from "./features/dashboard/routes";
import { dnsRoutes } from "./features/dns/routes";
import { domainsRoutes } from "./features/domains/routes";
import { domainPageRoutes } from "./features/domains/page-routes";
import { healthRoutes } from "./features/health/routes";
import { orgsRoutes } from "./features/orgs/routes";
import { reportsRoutes } from "./features/reports/routes";
import { exportRoutes } from "./features/reports/export-routes";
import { settingsRoutes } from "./features/settings/routes";
import { twoFactorPolicyRoutes } from "./features/settings/two-factor-routes";
import { tokenRoutes } from "./features/tokens/routes";
import { ssoRoutes } from "./features/sso/routes";
import { trendsRoutes } from "./features/trends/routes";
import { mailinRoutes } from "./features/mailin/routes";
import { onboardingRoutes } from "./features/onboarding/routes";
import { alertsRoutes } from "./features/alerts/routes";
import { auditRoutes } from "./features/audit/routes";
import { metricsRoutes, routeOf, routeRecorder } from "./features/metrics/routes";
import { openapiRoutes } from "./features/openapi/routes";
import { portfolioRoutes } from "./features/portfolio/routes";
import { brandingRoutes } from "./features/branding/routes";
import type { RouteInfo } from "./features/openapi/document";
import { httpDuration, httpRequests } from "./features/metrics/registry";

/** Largest request body any route accepts; upload routes check their own, smaller bounds. */
export const MAX_BODY_BYTES = 50 * 1024 * 1024;

/** The one place features are mounted. */
export function createApp(deps: AppDeps) {
  // the OpenAPI document walks the finished app's routes
  let routes: () => readonly RouteInfo[] = () => [];
  const app = (
    new Elysia({ name: "dmarcwarden" })
      .onRequest(({ request }) => {
        const length = Number(request.headers.get("content-length") ?? 0);
        if (length > MAX_BODY_BYTES) return jsonError(413, "payload_too_large", `The request is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB.`);
      })
      .use(errorPlugin(deps.log))
      .use(routeRecorder())
      .use(securityPlugin({ publicUrl: deps.config.publicUrl }))
      .use(healthRoutes(deps))
      .use(contactRoutes(deps))
      .use(adminRoutes(deps))
      .use(authRoutes(deps))
      .use(orgsRoutes(deps))
      .use(portfolioRoutes(deps))
      .use(brandingRoutes(deps))
      .use(domainsRoutes(deps))
      .use(domainPageRoutes(deps))
      .use(dnsRoutes(deps))
      .use(reportsRoutes(deps))
      .use(exportRoutes(deps))
      .use(dashboardRoutes(deps))
      .use(trendsRoutes(deps))
      .use(settingsRoutes(deps))
      .use(twoFactorPolicyRoutes(deps))
      .use(tokenRoutes(deps))
      .use(ssoRoutes(deps))
      .use(mailinRoutes(deps))
      .use(onboardingRoutes(deps))
      .use(alertsRoutes(deps))
      .use(auditRoutes(deps))
      .use(metricsRoutes(deps))
      .use(openapiRoutes(deps, () => routes()))
      .use(billingRoutes(deps))
      .use(access(deps))
      .all("/api/*", () => jsonError(404, "not_found", "No such endpoint."), { public: true })
      .get(
        "/*",
        ({ request }) => {
          const { pathname } = new URL(request.url);
          // Elysia matches this wildcard before `.all("/api/*")` for GET, so unknown API paths are refused here too.
          if (pathname === "/api" || pathname.startsWith("/api/")) return jsonError(404, "not_found", "No such endpoint.");
          return serveSpa(deps.assets ?? { files: new Map() }, pathname, request.headers.get("accept-encoding"));
        },
        { public: true },
      )
  );
  routes = () => app.routes;
  return app;
}

export type App = ReturnType<typeof createApp>;

/**
 * The server's fetch handler: the app, plus one JSON log line per request with method,
 * path (never the query string: it may carry tokens), status and duration. Logged here
 * rather than in an Elysia hook so that early refusals are logged too.
 */
export function createHandler(deps: AppDeps, app: App = createApp(deps)) {
  return async (request: Request): Promise<Response> => {
    const t0 = performance.now();
    let status = 500;
    try {
      const response = await compressJson(request, await app.handle(request));
      status = response.status;
      addSecurityHeaders(response, request, deps.config);
      return response;
    } finally {
      const path = new URL(request.url).pathname;
      // metrics by route pattern (never the raw path: ids would make a series each)
      const route = routeOf(request);
      httpRequests.inc({ method: request.method, route, status: String(status) });
      httpDuration.observe({ method: request.method, route }, (performance.now() - t0) / 1000);
      deps.log.info("request", { method: request.method, path, status, ms: Math.round((performance.now() - t0) * 10) / 10 });
    }
  };
}
