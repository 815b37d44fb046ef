/**
 * The server's fetch handler until the app has loaded. `serve` listens as soon as the database
 * is open: GET /healthz is answered at once (the health route's own answer, checkHealth: the
 * database answers a query). The first other request loads the app (its routes, contracts and services)
 * and waits for it, as do requests arriving meanwhile; from then on every request goes straight
 * to the app (/healthz included). A server that only answers health checks never loads it.
 * Nothing here loads Elysia, Zod or a feature.
 */
import type { Store } from "../db";
import { checkHealth } from "../features/health/check";
import { httpDuration, httpRequests } from "../features/metrics/registry";
import type { Logger } from "../log";
import { addSecurityHeaders } from "./headers";

export type FetchHandler = (request: Request) => Promise<Response>;

export interface BootHandler {
  fetch: FetchHandler;
  /** loads the app now if no request has yet (serve's own start-up uses it) */
  load(): Promise<FetchHandler>;
  /** resolves after the first request has been answered */
  firstAnswered: Promise<void>;
}

/**
 * `loadApp` is called once, by the first request that needs the app. When it fails, the
 * requests waiting get a 503 (serve reports the failure and stops).
 */
export function bootHandler(
  deps: { store: Store; log: Logger; config: { publicUrl: string; stripeSecretKey: string } },
  loadApp: () => Promise<FetchHandler>,
): BootHandler {
  let app: FetchHandler | null = null;
  let failure: unknown = null;
  let loading: Promise<FetchHandler> | null = null;
  const load = () =>
    (loading ??= loadApp().then(
      (handler) => (app = handler),
      (error) => {
        failure = error ?? new Error("start-up failed");
        throw failure;
      },
    ));
  let answered!: () => void;
  const firstAnswered = new Promise<void>((resolve) => (answered = resolve));

  const health = async (request: Request): Promise<Response> => {
    const t0 = performance.now();
    const answer = await checkHealth(deps.store);
    const response = new Response(JSON.stringify(answer), {
      status: answer.db === "ok" ? 200 : 503,
      headers: { "content-type": "application/json;charset=utf-8" },
    });
    addSecurityHeaders(response, request, deps.config);
    const seconds = (performance.now() - t0) / 1000;
    httpRequests.inc({ method: request.method, route: "/healthz", status: String(response.status) });
    httpDuration.observe({ method: request.method, route: "/healthz" }, seconds);
    deps.log.info("request", { method: request.method, path: "/healthz", status: response.status, ms: Math.round(seconds * 10_000) / 10 });
    return response;
  };

  // the errors' shape (./errors errorBody), without loading that module
  const unavailable = (request: Request) => {
    const response = new Response(JSON.stringify({ error: { code: "unavailable", message: "The server could not start. Try again shortly." } }), {
      status: 503,
      headers: { "content-type": "application/json; charset=utf-8", "retry-after": "5" },
    });
    addSecurityHeaders(response, request, deps.config);
    return response;
  };

  const early = async (request: Request): Promise<Response> => {
    if (failure) return unavailable(request);
    if ((request.method === "GET" || request.method === "HEAD") && new URL(request.url).pathname === "/healthz") return health(request);
    let handler: FetchHandler;
    try {
      handler = await load();
    } catch {
      return unavailable(request);
    }
    return handler(request);
  };

  return {
    firstAnswered,
    load,
    fetch: (request) => {
      if (app) return app(request);
      const answer = early(request);
      const done = () => void setTimeout(answered, 0);
      answer.then(done, done);
      return answer;
    },
  };
}
