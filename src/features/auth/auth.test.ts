import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sessions, users } from "../../db/schema";
import { cookieFrom, makeTestApp, type TestApp } from "../../../tests/support/app";
import { FAILURES_PER_ACCOUNT } from "./throttle";

let t: TestApp;
afterEach(() => t?.close());

const signupBody = { name: "Dana Scully", email: "Dana@Example.com", password: "correct horse battery", organization: "Acme Dental" };

async function signupDana(app: TestApp) {
  const res = await app.json("POST", "/api/auth/signup", { body: signupBody });
  expect(res.status).toBe(201);
  return { res, cookie: cookieFrom(res, "dw_session")! };
}

describe("signup", () => {
  test("creates the user (email lower-cased), an organization they own and a session cookie", async () => {
    t = await makeTestApp();
    const { res, cookie } = await signupDana(t);
    expect(res.body.user).toMatchObject({ name: "Dana Scully", email: "dana@example.com" });
    expect(res.body.currentOrg).toMatchObject({ name: "Acme Dental", role: "owner", parentId: null });
    expect(res.body.organizations).toHaveLength(1);
    const setCookie = res.headers.getSetCookie()[0]!;
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).not.toContain("Secure");
    const me = await t.json("GET", "/api/auth/me", { cookie });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe("dana@example.com");
    // the password is stored as argon2id and the session token only as a hash
    const [row] = await t.deps.store.db.select().from(users);
    expect(row!.passwordHash).toStartWith("$argon2id$");
    const token = cookie.split("=")[1]!;
    expect((await t.deps.store.db.select().from(sessions)).some((s) => s.tokenHash === token)).toBe(false);
  });

  test("the cookie is Secure when the public address is HTTPS", async () => {
    t = await makeTestApp({ config: { publicUrl: "https://dmarc.example.com" } });
    const res = await t.request("POST", "/api/auth/signup", { body: signupBody });
    expect(res.headers.getSetCookie()[0]).toContain("; Secure");
  });

  test("the same email in another case is refused with 409", async () => {
    t = await makeTestApp();
    await signupDana(t);
    const again = await t.json("POST", "/api/auth/signup", { body: { ...signupBody, email: "DANA@example.COM" } });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe("An account with this email already exists. Sign in instead.");
  });

  test.each([
    [{ ...signupBody, password: "short" }, "password", "Password must be at least 10 characters"],
    [{ ...signupBody, password: "x".repeat(129) }, "password", "Password must be at most 128 characters"],
    [{ ...signupBody, password: "aaaaaaaaaaaa" }, "password", "Password is too simple: use a longer mix of words, letters, numbers or symbols"],
    [{ ...signupBody, password: "dana@example.com" }, "password", "Password must not be your email address"],
    [{ ...signupBody, email: "not-an-email" }, "email", "Please enter a valid email address"],
    [{ ...signupBody, name: "D" }, "name", "Name must be at least 2 characters"],
    [{ ...signupBody, organization: "" }, "organization", "Organization name must be at least 2 characters"],
    [{}, "name", "Name must be at least 2 characters"],
  ])("bad input %# → 400 naming the field", async (body, field, message) => {
    t = await makeTestApp();
    const res = await t.json("POST", "/api/auth/signup", { body });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[field]).toBe(message);
  });
});

describe("login, me, logout", () => {
  test("login with any case of the email opens a session; wrong password is 401 with a clear message", async () => {
    t = await makeTestApp();
    await signupDana(t);
    const bad = await t.json("POST", "/api/auth/login", { body: { email: "dana@example.com", password: "wrong password!" } });
    expect(bad.status).toBe(401);
    expect(bad.body.error.message).toBe("Email or password is incorrect.");
    const unknown = await t.json("POST", "/api/auth/login", { body: { email: "nobody@example.com", password: "whatever it is" } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toBe("Email or password is incorrect.");
    const ok = await t.json("POST", "/api/auth/login", { body: { email: "DANA@EXAMPLE.COM", password: signupBody.password } });
    expect(ok.status).toBe(200);
    expect(ok.body.currentOrg.name).toBe("Acme Dental");
    const me = await t.json("GET", "/api/auth/me", { cookie: cookieFrom(ok, "dw_session") });
    expect(me.body.user.name).toBe("Dana Scully");
  });

  test("missing fields → 400", async () => {
    t = await makeTestApp();
    const res = await t.json("POST", "/api/auth/login", { body: { email: "dana@example.com" } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields.password).toBe("Password is required");
  });

  test("repeated failures for one account are refused with 429, even with the right password", async () => {
    t = await makeTestApp();
    await signupDana(t);
    for (let i = 0; i < FAILURES_PER_ACCOUNT; i++) {
      expect((await t.json("POST", "/api/auth/login", { body: { email: "dana@example.com", password: `wrong-${i}-password` } })).status).toBe(401);
    }
    const refused = await t.json("POST", "/api/auth/login", { body: { email: "dana@example.com", password: signupBody.password } });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect(refused.body.error.message).toContain("Too many failed sign-in attempts");
  }, 30_000);

  test("repeated failures from one address across many accounts are refused with 429", async () => {
    t = await makeTestApp();
    let last = 0;
    for (let i = 0; i < 21; i++) last = (await t.json("POST", "/api/auth/login", { body: { email: `u${i}@example.com`, password: "wrong password" } })).status;
    expect(last).toBe(429);
  }, 30_000);

  test("logout ends the session and clears the cookie; me is then 401", async () => {
    t = await makeTestApp();
    const { cookie } = await signupDana(t);
    const out = await t.request("POST", "/api/auth/logout", { cookie });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie()[0]).toContain("Max-Age=0");
    const me = await t.json("GET", "/api/auth/me", { cookie });
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe("unauthorized");
  });

  test("an expired session is not accepted", async () => {
    t = await makeTestApp();
    const { cookie } = await signupDana(t);
    const [user] = await t.deps.store.db.select().from(users);
    await t.deps.store.write((tx) => tx.update(sessions).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(sessions.userId, user!.id)));
    expect((await t.json("GET", "/api/auth/me", { cookie })).status).toBe(401);
  });
});
