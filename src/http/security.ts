import { Elysia } from "elysia";
import { jsonError } from "./errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses state-changing requests sent from another site (CSRF). A request without an Origin
 * header (curl, server-to-server webhooks) is let through: browsers always send Origin on
 * cross-site POST/PUT/DELETE.
 */
export function securityPlugin(options: { publicUrl: string }) {
  return new Elysia({ name: "security" })
    .onRequest(({ request }) => {
      if (SAFE_METHODS.has(request.method)) return;
      const origin = request.headers.get("origin");
      if (!origin || origin === "null") return origin === "null" ? refuse() : undefined;
      const url = new URL(request.url);
      const allowed = new Set([url.origin]);
      const host = request.headers.get("host");
      if (host) {
        allowed.add(`http://${host}`);
        allowed.add(`https://${host}`);
      }
      if (options.publicUrl) allowed.add(new URL(options.publicUrl).origin);
      if (!allowed.has(origin)) return refuse();
    });
}

function refuse() {
  return jsonError(403, "cross_origin_refused", "This request came from another site and was refused. Open the app directly and try again.");
}

// the response headers live in ./headers (no Elysia there: the start-up's health answer sets them too)
export { addSecurityHeaders, contentSecurityPolicy, HSTS_VALUE, SECURITY_HEADERS, STRIPE_PAGES, STRIPE_SOURCES } from "./headers";
