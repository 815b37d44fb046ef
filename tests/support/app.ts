/**
 * Builds the real app on a fresh SQLite database (":memory:" unless a path is given) for
 * server tests that call app.handle(new Request(...)). Nothing is mocked.
 */
import { createApp, createHandler } from "../../src/app";
import { testConfig, type Config } from "../../src/config";
import { openStore } from "../../src/db";
import type { AppDeps } from "../../src/deps";
import { RateLimiter } from "../../src/http/rate-limit";
import { memoryLogger } from "../../src/log";

export const BASE = "http://localhost";

export interface TestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  logs: string[];
  /** sends a request; a plain object body goes as JSON */
  request(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; cookie?: string }): Promise<Response>;
  json<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; cookie?: string }): Promise<{ status: number; body: T; headers: Headers }>;
  close(): void;
}

export async function makeTestApp(options: { config?: Partial<Config>; deps?: Partial<AppDeps>; dbPath?: string } = {}): Promise<TestApp> {
  const config = testConfig({ db: options.dbPath ?? ":memory:", ...options.config });
  const store = openStore(config.db);
  const log = memoryLogger();
  const deps: AppDeps = { config, store, log, limiter: new RateLimiter(store, () => deps.now()), now: () => new Date(), ...options.deps };
  const app = createApp(deps);
  const handle = createHandler(deps, app);
  const request: TestApp["request"] = (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData || typeof opts.body === "string" || opts.body instanceof Uint8Array) body = opts.body as BodyInit;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    if (opts.cookie) headers.cookie = opts.cookie;
    return handle(new Request(BASE + path, { method, headers, body }));
  };
  return {
    app,
    deps,
    logs: log.lines,
    request,
    async json(method, path, opts) {
      const res = await request(method, path, opts);
      const text = await res.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: res.status, body, headers: res.headers };
    },
    close: () => store.close(),
  };
}

/** The `name=value` pair of a Set-Cookie header, ready to send back as Cookie. */
export function cookieFrom(res: Response | { headers: Headers }, name: string): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    if (pair?.startsWith(`${name}=`)) return pair;
  }
  return undefined;
}
