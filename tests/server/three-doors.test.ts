/**
 * The session, the API token and the admin session are three separate doors. Walking every route
 * of the app by its declared access: an API token and an admin session never open a signed-in
 * user's routes, a session and a token never open the admin console, an admin session never opens
 * a tenant route — and each credential, presented through another door's slot, is unknown there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ACCESS_DETAIL } from "../../src/http/access";
import { seedAdmin } from "../../src/features/admin/seed";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember } from "../support/fixtures";

let t: TestApp;
let session: string; // "dw_session=…"
let token: string;
let adminSession: string;

beforeAll(async () => {
  t = await makeTestApp();
  const owner = await signedInMember(t.deps.store, "owner", "Doors Inc");
  session = owner.cookie;
  token = (await t.json("POST", "/api/tokens", { cookie: session, body: { name: "Door test", role: "owner" } })).body.token;
  await seedAdmin(t.deps, "admin", "change-me-now");
  adminSession = (await t.json("POST", "/api/admin/login", { body: { username: "admin", password: "change-me-now" } })).body.sessionId;
});
afterAll(() => t.close());

const sessionValue = () => session.split("=")[1]!;

function routesOf(kind: (access: string) => boolean) {
  return t.app.routes
    .filter((r) => kind(String((r.hooks as { detail?: Record<string, unknown> }).detail?.[ACCESS_DETAIL] ?? "")))
    .map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)/g, "00000000-0000-4000-8000-000000000000") }));
}

test("each door opens its own routes", async () => {
  expect((await t.json("GET", "/api/auth/me", { cookie: session })).status).toBe(200);
  expect((await t.json("GET", "/api/domains", { cookie: session })).status).toBe(200);
  expect((await t.json("GET", "/api/domains", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  expect((await t.json("GET", "/api/admin/contact-submissions", { headers: { "x-admin-session": adminSession } })).status).toBe(200);
});

describe("no door opens another's routes", () => {
  test("signed-in user routes: an API token or an admin session → 401", async () => {
    const routes = routesOf((a) => a === "signedIn");
    expect(routes.length).toBeGreaterThan(3);
    for (const r of routes) {
      const res = await t.request(r.method, r.path, { headers: { authorization: `Bearer ${token}`, "x-admin-session": adminSession } });
      expect(`${r.method} ${r.path} ${res.status}`).toBe(`${r.method} ${r.path} 401`);
    }
  });

  test("admin console routes: a session or an API token → 401", async () => {
    const routes = routesOf((a) => a === "admin");
    expect(routes.length).toBeGreaterThan(1);
    for (const r of routes) {
      const res = await t.request(r.method, r.path, { cookie: session, headers: { authorization: `Bearer ${token}` } });
      expect(`${r.method} ${r.path} ${res.status}`).toBe(`${r.method} ${r.path} 401`);
    }
  });

  test("tenant routes: an admin session → 401", async () => {
    const routes = routesOf((a) => a.startsWith("org:"));
    expect(routes.length).toBeGreaterThan(30);
    for (const r of routes) {
      const res = await t.request(r.method, r.path, { headers: { "x-admin-session": adminSession } });
      expect(`${r.method} ${r.path} ${res.status}`).toBe(`${r.method} ${r.path} 401`);
    }
  });

  test("a credential in another door's slot is unknown there", async () => {
    const attempts: [string, string, Record<string, string>, string | undefined][] = [
      ["token as session cookie", "/api/auth/me", {}, `dw_session=${token}`],
      ["token as admin session", "/api/admin/contact-submissions", { "x-admin-session": token }, undefined],
      ["session as bearer", "/api/domains", { authorization: `Bearer ${sessionValue()}` }, undefined],
      ["session as admin session", "/api/admin/contact-submissions", { "x-admin-session": sessionValue() }, undefined],
      ["admin session as bearer", "/api/domains", { authorization: `Bearer ${adminSession}` }, undefined],
      ["admin session as session cookie", "/api/domains", {}, `dw_session=${adminSession}`],
      ["admin session as session cookie (me)", "/api/auth/me", {}, `dw_session=${adminSession}`],
    ];
    for (const [name, path, headers, cookie] of attempts) {
      const res = await t.request("GET", path, { headers, cookie });
      expect(`${name}: ${res.status}`).toBe(`${name}: 401`);
    }
  });
});
