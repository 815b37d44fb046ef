/**
 * Builds the real app on a fresh database for server tests that call app.handle(new
 * Request(...)). Nothing is mocked. The database is SQLite (":memory:" unless a file is given)
 * or, when the suite runs on PostgreSQL (DW_TEST_DATABASE_URL, see scripts/test.ts) and no file
 * is given, a new PostgreSQL database copied from the migrated template DW_TEST_PG_TEMPLATE,
 * dropped again by close().
 */
import { SQL } from "bun";
import { createApp, createHandler } from "../../src/app";
import { testConfig, type Config } from "../../src/config";
import { openPostgresStore, openStore, type Store } from "../../src/db";
import type { AppDeps } from "../../src/deps";
import { RateLimiter } from "../../src/http/rate-limit";
import { memoryLogger } from "../../src/log";
import { generateSecretKey } from "../../src/features/mailin/secret-box";

export const BASE = "http://localhost";

export interface TestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  logs: string[];
  /** sends a request; a plain object body goes as JSON */
  request(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; cookie?: string }): Promise<Response>;
  json<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; cookie?: string }): Promise<{ status: number; body: T; headers: Headers }>;
  /** closes the store (and drops a PostgreSQL test database) */
  close(): Promise<void>;
}

/** The PostgreSQL cluster the suite runs on, or null for SQLite. */
export const TEST_POSTGRES_URL = process.env.DW_TEST_DATABASE_URL || null;

/** For `test.skipIf`: true in the suite's PostgreSQL run, saying which test skips and why. */
export function sqliteOnly(what: string): boolean {
  if (TEST_POSTGRES_URL) console.log(`skipped on PostgreSQL, SQLite-only: ${what}`);
  return !!TEST_POSTGRES_URL;
}

/** one connection pair per cluster, to create and drop test databases */
const admins = new Map<string, SQL>();
/** FILE_COPY (PostgreSQL 15+) copies a small template several times faster than the default */
let strategy: Promise<string> | null = null;
let counter = 0;

/** A fresh PostgreSQL database from the migrated template, opened as a store; close() drops it. */
export async function testPostgresStore(base: string, template = process.env.DW_TEST_PG_TEMPLATE): Promise<{ store: Store; url: string }> {
  if (!template || !/^[a-z0-9_]+$/.test(template)) throw new Error("DW_TEST_PG_TEMPLATE must name the migrated template database");
  if (!admins.has(base)) admins.set(base, new SQL({ url: base, max: 2 }));
  const cluster = admins.get(base)!;
  strategy ??= cluster`SHOW server_version_num`.then((rows: { server_version_num: string }[]) => (Number(rows[0]?.server_version_num) >= 150000 ? " STRATEGY FILE_COPY" : ""));
  const name = `t${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  await cluster.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}${await strategy}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const store = await openPostgresStore(url.toString(), { pool: 4, migrate: false });
  const close = store.close;
  let dropped: Promise<void> | null = null;
  store.close = () =>
    (dropped ??= close().then(async () => {
      await cluster.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }));
  return { store, url: url.toString() };
}

export async function makeTestApp(options: { config?: Partial<Config>; deps?: Partial<AppDeps>; dbPath?: string } = {}): Promise<TestApp> {
  const config = testConfig({ db: options.dbPath ?? ":memory:", ...options.config });
  // a test that names a SQLite file tests something of that file
  const postgres = TEST_POSTGRES_URL && !options.dbPath && !options.config?.db ? TEST_POSTGRES_URL : null;
  const pg = postgres ? await testPostgresStore(postgres) : null;
  const store = pg?.store ?? openStore(config.db);
  if (pg) {
    config.databaseUrl = pg.url;
    // PostgreSQL has no key file: every node is given the key
    config.secretKey ||= Buffer.from(generateSecretKey()).toString("base64");
  }
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
