/**
 * Every route of the real app declares exactly one kind of access (public, signedIn,
 * org:<permission> or admin) through the guard macros of access.ts. A route added without one
 * fails here before it can be reached without its guard.
 */
import { afterEach, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { makeTestApp, type TestApp } from "../../tests/support/app";
import { access, ACCESS_DETAIL, declaredAccess } from "./access";

let t: TestApp | null = null;
afterEach(() => {
  t?.close();
  t = null;
});

test("every route declares exactly one kind of access", async () => {
  t = await makeTestApp();
  const routes = t.app.routes.map((route) => {
    const detail = (route.hooks as { detail?: Record<string, unknown> }).detail;
    return { route: `${route.method} ${route.path}`, kinds: declaredAccess(detail), recorded: detail?.[ACCESS_DETAIL] };
  });
  expect(routes.length).toBeGreaterThan(40);
  const undeclared = routes.filter((r) => r.kinds.length !== 1 || r.recorded !== r.kinds[0]).map((r) => `${r.route}: ${r.kinds.join(" + ") || "none"}`);
  expect(undeclared).toEqual([]);
});

test("the admin and tenant routes are guarded, not public", async () => {
  t = await makeTestApp();
  const kindOf = (method: string, path: string) => t!.app.routes.find((r) => r.method === method && r.path === path)?.hooks.detail?.[ACCESS_DETAIL];
  expect(kindOf("GET", "/api/admin/contact-submissions")).toBe("admin");
  expect(kindOf("GET", "/api/domains")).toBe("org:read");
  expect(kindOf("GET", "/api/auth/me")).toBe("signedIn");
  expect(kindOf("GET", "/*")).toBe("public");
  expect(kindOf("POST", "/api/branding/hostname/verify")).toBe("org:settings:manage");
});

test("the walk tells a route with no access, or with two, from a declared one", async () => {
  t = await makeTestApp();
  const app = new Elysia()
    .use(access(t.deps))
    .get("/none", () => "open")
    .get("/two", () => "both", { public: true, admin: true })
    .get("/one", () => "one", { org: "read" });
  const kinds = Object.fromEntries(app.routes.map((r) => [r.path, declaredAccess((r.hooks as { detail?: Record<string, unknown> }).detail)]));
  expect(kinds).toEqual({ "/none": [], "/two": ["public", "admin"], "/one": ["org:read"] });
});
