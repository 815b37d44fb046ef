/**
 * The start-up handler (src/http/boot.ts): /healthz is answered before the app has loaded,
 * exactly as the app's own health route answers it; the first other request loads the app
 * once and every request waiting gets the app's answer; a failed load answers 503.
 */
import { afterEach, expect, test } from "bun:test";
import { BASE, makeTestApp, type TestApp } from "../../tests/support/app";
import { bootHandler, type FetchHandler } from "./boot";

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const get = (path: string, init: RequestInit = {}) => new Request(BASE + path, init);

test("/healthz before the app has loaded: the health route's own status, body and headers, and the app is not loaded", async () => {
  t = await makeTestApp();
  let loads = 0;
  const boot = bootHandler(t.deps, async () => {
    loads++;
    return (request) => t!.request(request.method, new URL(request.url).pathname);
  });
  const early = await boot.fetch(get("/healthz"));
  const fromApp = await t.request("GET", "/healthz");
  expect(early.status).toBe(200);
  expect(await early.json()).toEqual(await fromApp.json());
  for (const name of ["content-type", "x-content-type-options", "referrer-policy", "x-frame-options"]) expect(early.headers.get(name)).toBe(fromApp.headers.get(name));
  expect(loads).toBe(0);
  await boot.firstAnswered;
});

test("the first other request loads the app once; requests arriving meanwhile wait for it and get the app's answers", async () => {
  t = await makeTestApp();
  let loads = 0;
  const seen: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const appHandler: FetchHandler = async (request) => {
    seen.push(new URL(request.url).pathname);
    return t!.request(request.method, new URL(request.url).pathname);
  };
  const boot = bootHandler(t.deps, async () => {
    loads++;
    await gate;
    return appHandler;
  });
  const me = boot.fetch(get("/api/auth/me"));
  const unknown = boot.fetch(get("/api/no-such-thing"));
  // the health check is not kept waiting by the loading app
  expect((await boot.fetch(get("/healthz"))).status).toBe(200);
  expect(seen).toEqual([]);
  release();
  expect((await me).status).toBe(401);
  const missing = await unknown;
  expect(missing.status).toBe(404);
  expect((await missing.json()).error.code).toBe("not_found");
  expect(loads).toBe(1);
  // once loaded, everything goes to the app, /healthz included
  expect((await boot.fetch(get("/healthz"))).status).toBe(200);
  expect(seen).toEqual(["/api/auth/me", "/api/no-such-thing", "/healthz"]);
});

test("POST /healthz is the app's to answer (its 404), as before", async () => {
  t = await makeTestApp();
  const boot = bootHandler(t.deps, async () => (request) => t!.request(request.method, new URL(request.url).pathname));
  const res = await boot.fetch(get("/healthz", { method: "POST" }));
  expect(res.status).toBe(404);
});

test("an app that cannot load: the waiting request and every later one get a 503 in the errors' shape", async () => {
  t = await makeTestApp();
  const boot = bootHandler(t.deps, async () => {
    throw new Error("--secret-key: not a key");
  });
  const first = await boot.fetch(get("/api/auth/me"));
  expect(first.status).toBe(503);
  expect((await first.json()).error.code).toBe("unavailable");
  expect(first.headers.get("x-content-type-options")).toBe("nosniff");
  expect((await boot.fetch(get("/healthz"))).status).toBe(503);
});

test("a database that does not answer: /healthz says degraded with a 503, as the health route does", async () => {
  t = await makeTestApp();
  const boot = bootHandler(t.deps, async () => (request) => t!.request(request.method, new URL(request.url).pathname));
  await t.deps.store.close();
  const res = await boot.fetch(get("/healthz"));
  expect(res.status).toBe(503);
  expect(await res.json()).toMatchObject({ status: "degraded", db: "error" });
});
