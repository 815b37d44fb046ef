/**
 * One password rule everywhere: common or easily guessed passwords are refused with the same
 * clear message at sign-up, reset, the trial's set-password and the Master Administrator's seed.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { cookieFrom, makeTestApp, type TestApp } from "../../../tests/support/app";
import { seedAdmin } from "../admin/seed";
import { PASSWORD_GUESSABLE_MESSAGE } from "./contract";
import { issuePasswordToken } from "./password-links";

let t: TestApp;
afterEach(() => t?.close());

const COMMON = ["password12", "1234567890", "qwertyuiop", "Password123"];

describe("common passwords are refused", () => {
  test.each(COMMON)("sign-up with %p → 400 with the password rule's message", async (password) => {
    t = await makeTestApp();
    const res = await t.json("POST", "/api/auth/signup", { body: { name: "Pat Common", email: "pat@example.test", password, organization: "Common Org" } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields.password).toBe(PASSWORD_GUESSABLE_MESSAGE);
  });

  test.each(COMMON)("reset through a password link with %p → 400, and the link still works", async (password) => {
    t = await makeTestApp();
    await t.json("POST", "/api/auth/signup", { body: { name: "Pat Reset", email: "reset@example.test", password: "violet tractor lantern", organization: "Reset Org" } });
    const [user] = await t.deps.store.db.select().from(users).where(eq(users.email, "reset@example.test"));
    const { token } = await issuePasswordToken(t.deps, user!.id, new Date());
    const res = await t.json("POST", "/api/auth/reset-password", { body: { token, password } });
    expect(res.status).toBe(400);
    expect(res.body.error.fields.password).toBe(PASSWORD_GUESSABLE_MESSAGE);
    expect((await t.json("POST", "/api/auth/reset-password", { body: { token, password: "amber kettle horizon" } })).status).toBe(200);
  });

  test.each(COMMON)("the trial account's first password %p → 400", async (password) => {
    t = await makeTestApp();
    const trial = await t.json("POST", "/api/create-trial-setup", {
      body: { company: "Trial Co", email: "trial@example.test", domains: 1, firstName: "Tia", lastName: "Trial", selectedPlan: "growth" },
    });
    expect(trial.status).toBe(200);
    const res = await t.json("POST", "/api/auth/set-password", { body: { password }, cookie: cookieFrom(trial, "dw_session") });
    expect(res.status).toBe(400);
    expect(res.body.error.fields.password).toBe(PASSWORD_GUESSABLE_MESSAGE);
  });

  test("the Master Administrator's seed follows the same rule (no shorter minimum, no common password)", async () => {
    t = await makeTestApp();
    for (const password of [...COMMON, "admin123"]) await expect(seedAdmin(t.deps, "admin", password)).rejects.toThrow("the admin password is refused");
    await expect(seedAdmin(t.deps, "admin", "Ab3$efgh9")).rejects.toThrow("at least 10 characters");
    expect(await seedAdmin(t.deps, "admin", "violet tractor lantern")).toBe("created");
  });

  test("a few unrelated words are accepted", async () => {
    t = await makeTestApp();
    const res = await t.json("POST", "/api/auth/signup", { body: { name: "Pat Good", email: "good@example.test", password: "violet tractor lantern", organization: "Good Org" } });
    expect(res.status).toBe(201);
  });
});
