import { Elysia } from "elysia";
import { jsonError } from "./errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Refuses state-changing requests sent from another site (CSRF). The Origin header decides;
 * without one, a Referer decides the same way (a browser may leave Origin out but still name the
 * page it came from). A request with neither (curl, API tokens, server-to-server webhooks) is let
 * through: browsers always send one of them on cross-site POST/PUT/DELETE.
 */
export function securityPlugin(options: { publicUrl: string }) {
  return new Elysia({ name: "security" })
    .onRequest(({ request }) => {
      if (SAFE_METHODS.has(request.method)) return;
      const origin = request.headers.get("origin");
      if (origin === "null") return refuse();
      const sender = origin ?? refererOrigin(request.headers.get("referer"));
      if (sender === undefined) return;
      if (sender === null || !ownOrigins(request, options.publicUrl).has(sender)) return refuse();
    });
}

/** The deployment's own origins for this request: its URL's, its Host's (custom hostnames too) and the public URL's. */
function ownOrigins(request: Request, publicUrl: string): Set<string> {
  const allowed = new Set([new URL(request.url).origin]);
  const host = request.headers.get("host");
  if (host) {
    allowed.add(`http://${host}`);
    allowed.add(`https://${host}`);
  }
  if (publicUrl) allowed.add(new URL(publicUrl).origin);
  return allowed;
}

/** The origin a Referer names: undefined without one, null when it is not a web address. */
function refererOrigin(referer: string | null): string | null | undefined {
  if (!referer) return undefined;
  try {
    const url = new URL(referer);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

function refuse() {
  return jsonError(403, "cross_origin_refused", "This request came from another site and was refused. Open the app directly and try again.");
}

// the response headers live in ./headers (no Elysia there: the start-up's health answer sets them too)
export { addSecurityHeaders, contentSecurityPolicy, HSTS_VALUE, SECURITY_HEADERS, STRIPE_PAGES, STRIPE_SOURCES } from "./headers";
