import { afterEach, describe, expect, test } from "bun:test";
import { adminSessions, contactSubmissions } from "../../db/schema";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { FAILURES_PER_ACCOUNT } from "../auth/throttle";
import { ADMIN_IDLE_HOURS } from "./service";
import { seedAdmin } from "./seed";

let t: TestApp;
afterEach(() => t?.close());

let clock = new Date("2025-03-01T10:00:00Z");
async function adminApp() {
  clock = new Date("2025-03-01T10:00:00Z");
  t = await makeTestApp({ deps: { now: () => clock } });
  await seedAdmin(t.deps, "admin", "change-me-now");
  return t;
}

async function login(app: TestApp, username = "admin", password = "change-me-now") {
  return app.json("POST", "/api/admin/login", { body: { username, password } });
}

async function addSubmission(app: TestApp, values: Partial<typeof contactSubmissions.$inferInsert> & { submittedAt: Date }) {
  const [row] = await app.deps.store.write((tx) =>
    tx
      .insert(contactSubmissions)
      .values({ name: "Ann Example", email: "ann@example.com", company: "Acme", requestType: "sales", subject: "Pricing question", message: "How much for fifty domains please?", ...values })
      .returning(),
  );
  return row!;
}

describe("admin login", () => {
  test("right credentials → success with a session id that is stored only hashed", async () => {
    await adminApp();
    const res = await login(t);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, sessionId: expect.any(String), message: "Login successful" });
    expect(res.body.sessionId.length).toBeGreaterThanOrEqual(40);
    const stored = await t.deps.store.db.select().from(adminSessions);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.tokenHash).not.toBe(res.body.sessionId);
    expect(JSON.stringify(stored)).not.toContain(res.body.sessionId);
  });

  test.each([
    ["admin", "wrong-password"],
    ["nobody", "change-me-now"],
  ])("wrong credentials (%p) → 401 success:false Invalid credentials", async (username, password) => {
    await adminApp();
    const res = await login(t, username, password);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: "Invalid credentials" });
  });

  test.each([{ username: "admin" }, { password: "x" }, { username: "", password: "x" }, {}])("missing fields %p → 400", async (body) => {
    await adminApp();
    const res = await t.json("POST", "/api/admin/login", { body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
  });

  test("repeated failures for one username are refused with 429, even with the right password", async () => {
    await adminApp();
    for (let i = 0; i < FAILURES_PER_ACCOUNT; i++) expect((await login(t, "admin", `nope-${i}`)).body.success).toBe(false);
    const res = await login(t);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe("rate_limited");
  }, 30_000);

  test("repeated failures from one address are refused with 429", async () => {
    await adminApp();
    let status = 0;
    for (let i = 0; i < 21; i++) status = (await login(t, `guess${i}`, "nope")).status;
    expect(status).toBe(429);
  }, 30_000);
});

describe("admin sessions guard the contact submissions", () => {
  test("missing, unknown, expired and logged-out sessions → 401 JSON", async () => {
    await adminApp();
    expect((await t.json("GET", "/api/admin/contact-submissions")).status).toBe(401);
    const unknown = await t.json("GET", "/api/admin/contact-submissions", { headers: { "x-admin-session": "made-up" } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.code).toBe("unauthorized");

    const { sessionId } = (await login(t)).body;
    const headers = { "x-admin-session": sessionId };
    expect((await t.json("GET", "/api/admin/contact-submissions", { headers })).status).toBe(200);
    // use keeps it alive: 11 hours later, then 11 more
    clock = new Date(clock.getTime() + (ADMIN_IDLE_HOURS - 1) * 3600_000);
    expect((await t.json("GET", "/api/admin/contact-submissions", { headers })).status).toBe(200);
    clock = new Date(clock.getTime() + (ADMIN_IDLE_HOURS - 1) * 3600_000);
    expect((await t.json("GET", "/api/admin/contact-submissions", { headers })).status).toBe(200);
    // 12 idle hours end it
    clock = new Date(clock.getTime() + ADMIN_IDLE_HOURS * 3600_000 + 1000);
    expect((await t.json("GET", "/api/admin/contact-submissions", { headers })).status).toBe(401);

    const second = (await login(t)).body.sessionId;
    const out = await t.json("POST", "/api/admin/logout", { body: { sessionId: second } });
    expect(out.status).toBe(200);
    expect(out.body.success).toBe(true);
    expect((await t.json("GET", "/api/admin/contact-submissions", { headers: { "x-admin-session": second } })).status).toBe(401);
    expect((await t.json("PUT", `/api/admin/contact-submissions/x/read`, { headers: { "x-admin-session": second } })).status).toBe(401);
  });

  test("logout without a session id → 400", async () => {
    await adminApp();
    expect((await t.json("POST", "/api/admin/logout", { body: {} })).status).toBe(400);
  });

  test("the list is newest first with every field; Mark Read sets isRead; unknown id → 404", async () => {
    await adminApp();
    const older = await addSubmission(t, { submittedAt: new Date("2025-02-01T09:00:00Z"), requestType: "support", subject: "Help with SPF" });
    const newer = await addSubmission(t, { submittedAt: new Date("2025-02-02T09:00:00Z"), phone: "+1 555 0100", domains: "a.com, b.com" });
    const headers = { "x-admin-session": (await login(t)).body.sessionId };
    const list = await t.json("GET", "/api/admin/contact-submissions", { headers });
    expect(list.status).toBe(200);
    expect(list.body.map((s: any) => s.id)).toEqual([newer.id, older.id]);
    expect(list.body[0]).toEqual({
      id: newer.id,
      name: "Ann Example",
      email: "ann@example.com",
      phone: "+1 555 0100",
      company: "Acme",
      domains: "a.com, b.com",
      requestType: "sales",
      subject: "Pricing question",
      message: "How much for fifty domains please?",
      isRead: false,
      submittedAt: "2025-02-02T09:00:00.000Z",
    });
    expect(list.body[1]).toMatchObject({ phone: null, domains: null, requestType: "support" });

    const read = await t.json("PUT", `/api/admin/contact-submissions/${older.id}/read`, { headers });
    expect(read.status).toBe(200);
    expect(read.body.isRead).toBe(true);
    const after = await t.json("GET", "/api/admin/contact-submissions", { headers });
    expect(after.body.find((s: any) => s.id === older.id).isRead).toBe(true);
    expect(after.body.find((s: any) => s.id === newer.id).isRead).toBe(false);

    const missing = await t.json("PUT", "/api/admin/contact-submissions/no-such-id/read", { headers });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("not_found");
  });

  test("a user session cookie is not an admin session", async () => {
    await adminApp();
    const signup = await t.request("POST", "/api/auth/signup", { body: { name: "Eve", email: "eve@example.com", password: "a long password 1", organization: "Eve Co" } });
    const cookie = signup.headers.getSetCookie()[0]!.split(";")[0]!;
    expect((await t.json("GET", "/api/admin/contact-submissions", { cookie })).status).toBe(401);
  });
});
