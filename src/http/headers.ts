/**
 * The security headers of every response (createHandler in src/app.ts, and the start-up's
 * health answer in ./boot). No Elysia here: the server sets them before the app has loaded.
 */

/** Set on every response by createHandler (src/app.ts), early refusals included. */
export const SECURITY_HEADERS: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
  "x-frame-options": "DENY",
};

/** Strict-Transport-Security when --public-url is https: one year, subdomains not included (they may be other services). */
export const HSTS_VALUE = "max-age=31536000";

/** SPA paths where the trial's payment step runs Stripe Elements; only these pages may load Stripe. */
export const STRIPE_PAGES = ["/trial"];

/** What Stripe.js and its Elements frames need (Stripe's Content-Security-Policy guide). */
export const STRIPE_SOURCES = {
  script: ["https://js.stripe.com", "https://*.js.stripe.com"],
  frame: ["https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"],
  connect: ["https://api.stripe.com"],
  img: ["https://*.stripe.com"],
};

/**
 * The Content-Security-Policy of an HTML page: the app's own scripts, styles, fonts and API
 * only; no inline script, no plugins, no framing, no <base>. Stripe's origins are added only on
 * the payment step's page and only when billing is on.
 */
export function contentSecurityPolicy(options: { stripe: boolean }): string {
  const stripe = (kind: keyof typeof STRIPE_SOURCES) => (options.stripe ? STRIPE_SOURCES[kind] : []);
  const directives: [string, string[]][] = [
    ["default-src", ["'self'"]],
    ["script-src", ["'self'", ...stripe("script")]],
    // 'unsafe-inline' here covers style attributes and the <style> elements the dialog and
    // tooltip primitives insert; scripts never get it.
    ["style-src", ["'self'", "'unsafe-inline'"]],
    ["img-src", ["'self'", "data:", ...stripe("img")]],
    ["font-src", ["'self'", "data:"]],
    ["connect-src", ["'self'", ...stripe("connect")]],
    ["frame-src", options.stripe ? STRIPE_SOURCES.frame : ["'none'"]],
    ["object-src", ["'none'"]],
    ["base-uri", ["'none'"]],
    ["form-action", ["'self'"]],
    ["frame-ancestors", ["'none'"]],
  ];
  return directives.map(([name, sources]) => `${name} ${sources.join(" ")}`).join("; ");
}

/**
 * Adds the security headers to a response: the fixed ones, a Content-Security-Policy on HTML
 * pages, and HSTS when the public URL is https.
 */
export function addSecurityHeaders(response: Response, request: Request, config: { publicUrl: string; stripeSecretKey: string }): void {
  const headers = response.headers;
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) if (!headers.has(name)) headers.set(name, value);
  if (config.publicUrl.startsWith("https://") && !headers.has("strict-transport-security")) headers.set("strict-transport-security", HSTS_VALUE);
  if ((headers.get("content-type") ?? "").startsWith("text/html") && !headers.has("content-security-policy")) {
    const { pathname } = new URL(request.url);
    const billingOn = !!config.stripeSecretKey;
    headers.set("content-security-policy", contentSecurityPolicy({ stripe: billingOn && STRIPE_PAGES.includes(pathname) }));
  }
}
