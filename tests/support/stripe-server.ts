/**
 * A small Stripe-speaking HTTP server on 127.0.0.1 for tests: the real `stripe` SDK is pointed
 * at it (`--stripe-api-base`, or `new Stripe(key, { host, port, protocol: "http" })`). It answers
 * only the endpoints the product calls — customers, setup intents, subscriptions — and records
 * every request (form-encoded params flattened as Stripe sends them, e.g. `items[0][price]`) so
 * tests check what the product sent.
 */
import Stripe from "stripe";
import type { Config } from "../../src/config";

export interface RecordedStripeRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  idempotencyKey: string | null;
  authorization: string | null;
}

export interface StripeStandIn {
  url: string;
  port: number;
  requests: RecordedStripeRequest[];
  /** objects created, by id */
  objects: Map<string, Record<string, unknown>>;
  /** the next request to `path` (e.g. "/v1/setup_intents") answers with a Stripe error */
  failNext(path: string, status?: number, message?: string): void;
  /** requests to a path, e.g. "/v1/subscriptions" */
  calls(path: string, method?: string): RecordedStripeRequest[];
  /** an SDK client pointed at this server */
  client(key?: string): Stripe;
  close(): void;
}

export const TEST_SECRET_KEY = "sk_test_dmarcwarden";
export const TEST_PUBLISHABLE_KEY = "pk_test_dmarcwarden";
export const TEST_WEBHOOK_SECRET = "whsec_test_dmarcwarden";
export const TEST_PRICES = { essentials: "price_essentials_test", growth: "price_growth_test", scale: "price_scale_test" } as const;

/** Flags that turn billing on against a stand-in at `url`. */
export function stripeFlags(url: string): string[] {
  return [
    "--stripe-secret-key", TEST_SECRET_KEY,
    "--stripe-publishable-key", TEST_PUBLISHABLE_KEY,
    "--stripe-webhook-secret", TEST_WEBHOOK_SECRET,
    "--stripe-price-essentials", TEST_PRICES.essentials,
    "--stripe-price-growth", TEST_PRICES.growth,
    "--stripe-price-scale", TEST_PRICES.scale,
    "--stripe-api-base", url,
  ];
}

/** The same settings as Config members, for makeTestApp({ config }). */
export function stripeConfig(url: string): Partial<Config> {
  return {
    stripeSecretKey: TEST_SECRET_KEY,
    stripePublishableKey: TEST_PUBLISHABLE_KEY,
    stripeWebhookSecret: TEST_WEBHOOK_SECRET,
    stripePriceEssentials: TEST_PRICES.essentials,
    stripePriceGrowth: TEST_PRICES.growth,
    stripePriceScale: TEST_PRICES.scale,
    stripeApiBase: url,
  };
}

export function startStripeServer(): StripeStandIn {
  const requests: RecordedStripeRequest[] = [];
  const objects = new Map<string, Record<string, unknown>>();
  const failures = new Map<string, { status: number; message: string }>();
  let counter = 0;
  const newId = (prefix: string) => `${prefix}_test${++counter}${Math.random().toString(36).slice(2, 8)}`;
  const now = () => Math.floor(Date.now() / 1000);

  const stripeError = (status: number, message: string, type = "invalid_request_error") =>
    Response.json({ error: { type, message } }, { status, headers: { "request-id": `req_${++counter}` } });
  const ok = (body: Record<string, unknown>) => Response.json(body, { headers: { "request-id": `req_${++counter}` } });

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = request.method === "GET" || request.method === "DELETE" ? url.searchParams.toString() : await request.text();
      const params = Object.fromEntries(new URLSearchParams(text));
      requests.push({
        method: request.method,
        path: url.pathname,
        params,
        idempotencyKey: request.headers.get("idempotency-key"),
        authorization: request.headers.get("authorization"),
      });
      const failure = failures.get(url.pathname);
      if (failure) {
        failures.delete(url.pathname);
        return stripeError(failure.status, failure.message, failure.status >= 500 ? "api_error" : "invalid_request_error");
      }
      const metadata = (prefix = "metadata") =>
        Object.fromEntries(Object.entries(params).filter(([k]) => k.startsWith(`${prefix}[`)).map(([k, v]) => [k.slice(prefix.length + 1, -1), v]));
      const parts = url.pathname.split("/").filter(Boolean); // ["v1", "customers", id?]
      const [version, resource, id] = parts;
      if (version !== "v1") return stripeError(404, `Unrecognized request URL (${request.method}: ${url.pathname}).`);

      if (resource === "customers" && request.method === "POST" && !id) {
        const customer = { id: newId("cus"), object: "customer", email: params.email ?? null, name: params.name ?? null, metadata: metadata(), created: now(), livemode: false };
        objects.set(customer.id, customer);
        return ok(customer);
      }
      if (resource === "customers" && request.method === "DELETE" && id) {
        objects.delete(id);
        return ok({ id, object: "customer", deleted: true });
      }
      if (resource === "setup_intents" && request.method === "POST" && !id) {
        const sid = newId("seti");
        const intent = {
          id: sid,
          object: "setup_intent",
          client_secret: `${sid}_secret_${Math.random().toString(36).slice(2, 12)}`,
          customer: params.customer ?? null,
          usage: params.usage ?? "off_session",
          status: "requires_payment_method",
          payment_method: null,
          metadata: metadata(),
          created: now(),
          livemode: false,
        };
        objects.set(sid, intent);
        return ok(intent);
      }
      if (resource === "setup_intents" && request.method === "GET" && id) {
        const intent = objects.get(id);
        return intent ? ok(intent) : stripeError(404, `No such setupintent: '${id}'`);
      }
      if (resource === "subscriptions" && request.method === "POST") {
        const trialEnd = params.trial_end ? Number(params.trial_end) : null;
        const existing = id ? objects.get(id) : undefined;
        if (id && !existing) return stripeError(404, `No such subscription: '${id}'`);
        const subscription = existing
          ? { ...existing, ...(params.default_payment_method ? { default_payment_method: params.default_payment_method } : {}) }
          : {
              id: newId("sub"),
              object: "subscription",
              customer: params.customer,
              status: trialEnd && trialEnd > now() ? "trialing" : "active",
              trial_end: trialEnd,
              default_payment_method: params.default_payment_method ?? null,
              items: { object: "list", data: [{ id: newId("si"), object: "subscription_item", price: { id: params["items[0][price]"], object: "price" } }] },
              metadata: metadata(),
              created: now(),
              livemode: false,
            };
        objects.set(subscription.id as string, subscription);
        return ok(subscription);
      }
      return stripeError(404, `Unrecognized request URL (${request.method}: ${url.pathname}).`);
    },
  });

  const base = `http://127.0.0.1:${server.port}`;
  return {
    url: base,
    port: server.port!,
    requests,
    objects,
    failNext(path, status = 500, message = "An unexpected error occurred.") {
      failures.set(path, { status, message });
    },
    calls(path, method) {
      return requests.filter((r) => r.path === path && (!method || r.method === method));
    },
    client(key = TEST_SECRET_KEY) {
      return new Stripe(key, { host: "127.0.0.1", port: server.port!, protocol: "http", maxNetworkRetries: 0, telemetry: false });
    },
    close() {
      server.stop(true);
    },
  };
}

/** A signed webhook request body + Stripe-Signature header, as Stripe would send it. */
export async function signedEvent(
  stripe: Stripe,
  event: { id?: string; type: string; object: Record<string, unknown>; created?: number },
  options: { secret?: string; timestamp?: number } = {},
): Promise<{ payload: string; signature: string; id: string }> {
  const id = event.id ?? `evt_${crypto.randomUUID().replace(/-/g, "").slice(0, 20)}`;
  const payload = JSON.stringify(
    { id, object: "event", api_version: "2026-10-28.endive", created: event.created ?? Math.floor(Date.now() / 1000), type: event.type, data: { object: event.object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null } },
    null,
    2,
  );
  const signature = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: options.secret ?? TEST_WEBHOOK_SECRET, timestamp: options.timestamp });
  return { payload, signature, id };
}
