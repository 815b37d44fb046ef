/**
 * API tokens: created by admins (role ≤ their own, optional expiry), shown once, stored hashed,
 * listed with their last use, revocable; `Authorization: Bearer` acts in the token's
 * organisation with the token's role and nothing more.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Role } from "../../src/db/schema";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";

let t: TestApp | null = null;
afterEach(() => t?.close());

let clock = new Date("2025-06-02T09:00:00Z");

async function org() {
  clock = new Date("2025-06-02T09:00:00Z");
  t = await makeTestApp({ deps: { now: () => clock } });
  const orgId = await createOrg(t.deps.store, "Tokenised Ltd");
  const cookies = {} as Record<Role, string>;
  const ids = {} as Record<Role, string>;
  for (const role of ["owner", "admin", "member", "viewer"] as Role[]) {
    ids[role] = await createUser(t.deps.store, `${role}@tokenised.test`, `The ${role}`);
    await addMember(t.deps.store, orgId, ids[role], role);
    cookies[role] = await signIn(t.deps.store, ids[role], orgId);
  }
  return { t, orgId, cookies, ids };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("creating and listing", () => {
  test("an admin creates a token: { id, token } once; the list shows name, role, creator, expiry and last use, never the token", async () => {
    const { t, cookies } = await org();
    const res = await t.json("POST", "/api/tokens", { cookie: cookies.admin, body: { name: "CI export", role: "member", expiresAt: "2026-01-31" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["id", "token"]);
    expect(res.body.token).toMatch(/^dwt_[A-Za-z0-9_-]{43}$/);
    expect(res.headers.get("cache-control")).toBe("no-store");

    const list = await t.json("GET", "/api/tokens", { cookie: cookies.owner });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { id: res.body.id, name: "CI export", role: "member", createdAt: clock.toISOString(), createdBy: { id: expect.any(String), name: "The admin", email: "admin@tokenised.test" }, expiresAt: "2026-01-31T00:00:00.000Z", lastUsedAt: null, expired: false },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);
    const [row] = await t.deps.store.db.select().from(t.deps.store.t.apiTokens);
    expect(JSON.stringify(row)).not.toContain(res.body.token);

    clock = new Date(clock.getTime() + 3600_000);
    expect((await t.json("GET", "/api/domains", { headers: bearer(res.body.token) })).status).toBe(200);
    const after = await t.json("GET", "/api/tokens", { cookie: cookies.owner });
    expect(after.body[0].lastUsedAt).toBe(clock.toISOString());
  });

  test("a token's role is at most its creator's; members and viewers cannot manage tokens", async () => {
    const { t, cookies } = await org();
    const tooHigh = await t.json("POST", "/api/tokens", { cookie: cookies.admin, body: { name: "Root", role: "owner" } });
    expect(tooHigh.status).toBe(403);
    expect(tooHigh.body.error.message).toContain("at most your own");
    expect((await t.json("POST", "/api/tokens", { cookie: cookies.owner, body: { name: "Root", role: "owner" } })).status).toBe(201);
    for (const role of ["member", "viewer"] as Role[]) {
      expect((await t.json("POST", "/api/tokens", { cookie: cookies[role], body: { name: "Mine", role: "viewer" } })).status).toBe(403);
      expect((await t.json("GET", "/api/tokens", { cookie: cookies[role] })).status).toBe(403);
    }
  });

  test.each([
    [{}, "name", "Give the token a name"],
    [{ name: "   " }, "name", "Give the token a name"],
    [{ name: "x".repeat(101) }, "name", "at most 100"],
    [{ name: "Ok", role: "superuser" }, "role", "Role must be"],
    [{ name: "Ok", expiresAt: "next week" }, "expiresAt", "Expiry must be a date"],
    [{ name: "Ok", expiresAt: "2025-06-01" }, "expiresAt", "in the future"],
    [{ name: "Ok", expiresAt: "2040-01-01" }, "expiresAt", "5 years"],
  ])("bad input %j → 400 on %s", async (body, field, message) => {
    const { t, cookies } = await org();
    const res = await t.json("POST", "/api/tokens", { cookie: cookies.owner, body });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[field]).toBeTruthy();
    expect(JSON.stringify(res.body.error)).toContain(message);
  });
});

describe("using a token", () => {
  async function tokenOf(role: Role, extra: Record<string, unknown> = {}) {
    const w = await org();
    const res = await w.t.json("POST", "/api/tokens", { cookie: w.cookies.owner, body: { name: `${role} token`, role, ...extra } });
    expect(res.status).toBe(201);
    return { ...w, id: res.body.id as string, token: res.body.token as string };
  }

  test("a viewer token reads but cannot change; an admin token adds a domain", async () => {
    const viewer = await tokenOf("viewer");
    expect((await viewer.t.json("GET", "/api/domains", { headers: bearer(viewer.token) })).status).toBe(200);
    const refused = await viewer.t.json("POST", "/api/domains", { headers: bearer(viewer.token), body: { name: "by-token.example" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("token's role (viewer)");
    viewer.t.close();

    const admin = await tokenOf("admin");
    const added = await admin.t.json("POST", "/api/domains", { headers: bearer(admin.token), body: { name: "by-token.example" } });
    expect(added.status).toBe(201);
    const listed = await admin.t.json("GET", "/api/domains", { cookie: admin.cookies.viewer });
    expect(listed.body.map((d: any) => d.name)).toEqual(["by-token.example"]);
  });

  test("a token judged alone: with a valid session cookie beside a revoked token the answer is 401", async () => {
    const w = await tokenOf("admin");
    expect((await w.t.json("DELETE", `/api/tokens/${w.id}`, { cookie: w.cookies.admin })).status).toBe(200);
    const res = await w.t.json("GET", "/api/domains", { headers: bearer(w.token), cookie: w.cookies.owner });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain("revoked");
    expect((await w.t.json("GET", "/api/tokens", { cookie: w.cookies.owner })).body).toEqual([]);
    expect((await w.t.json("DELETE", `/api/tokens/${w.id}`, { cookie: w.cookies.admin })).status).toBe(404);
  });

  test("an expired token stops working; so does a token whose creator left the organization", async () => {
    const w = await tokenOf("viewer", { expiresAt: "2025-06-03" });
    expect((await w.t.json("GET", "/api/domains", { headers: bearer(w.token) })).status).toBe(200);
    clock = new Date("2025-06-03T00:00:01Z");
    expect((await w.t.json("GET", "/api/domains", { headers: bearer(w.token) })).status).toBe(401);
    expect((await w.t.json("GET", "/api/tokens", { cookie: w.cookies.owner })).body[0].expired).toBe(true);
    w.t.close();

    const v = await org();
    const made = await v.t.json("POST", "/api/tokens", { cookie: v.cookies.admin, body: { name: "Leaver", role: "viewer" } });
    expect((await v.t.json("GET", "/api/domains", { headers: bearer(made.body.token) })).status).toBe(200);
    const { memberships } = v.t.deps.store.t;
    await v.t.deps.store.write((tx) => tx.delete(memberships).where(eq(memberships.userId, v.ids.admin)));
    expect((await v.t.json("GET", "/api/domains", { headers: bearer(made.body.token) })).status).toBe(401);
  });

  test("a token cannot manage tokens nor change the sign-in rule, whatever its role", async () => {
    const w = await tokenOf("owner");
    for (const [method, path, body] of [
      ["GET", "/api/tokens", undefined],
      ["POST", "/api/tokens", { name: "Child", role: "viewer" }],
      ["DELETE", `/api/tokens/${w.id}`, undefined],
      ["PUT", "/api/settings/two-factor", { required: false }],
    ] as const) {
      const res = await w.t.json(method, path, { headers: bearer(w.token), body });
      expect(res.status).toBe(403);
    }
    expect((await w.t.json("GET", "/api/tokens", { cookie: w.cookies.owner })).body).toHaveLength(1);
  });

  test("a malformed Authorization header is 401, not a fall-back to the cookie", async () => {
    const w = await org();
    for (const header of ["Bearer nope", "Bearer dwt_forged", `Bearer ${"dwt_" + "a".repeat(300)}`]) {
      const res = await w.t.json("GET", "/api/domains", { headers: { authorization: header }, cookie: w.cookies.owner });
      expect(res.status).toBe(401);
    }
  });

  test("the audit log names who created and revoked a token, never the token itself", async () => {
    const w = await tokenOf("member");
    expect((await w.t.json("DELETE", `/api/tokens/${w.id}`, { cookie: w.cookies.admin })).status).toBe(200);
    const audit = await w.t.json("GET", "/api/audit", { cookie: w.cookies.owner });
    const entries = audit.body.entries.map((e: any) => [e.action, e.actorLabel, e.target]);
    expect(entries).toEqual(expect.arrayContaining([["token.created", "owner@tokenised.test", "member token"], ["token.revoked", "admin@tokenised.test", "member token"]]));
    expect(JSON.stringify(audit.body)).not.toContain(w.token);
  });

  test("tokens never show up in the logs", async () => {
    const w = await tokenOf("admin");
    await w.t.json("GET", "/api/domains", { headers: bearer(w.token) });
    await w.t.json("GET", "/api/domains?token=x", { headers: bearer(w.token) });
    expect(w.t.logs.length).toBeGreaterThan(2);
    expect(w.t.logs.join("\n")).not.toContain(w.token);
    expect(w.t.logs.join("\n")).not.toContain(w.token.slice(4, 20));
  });
});
