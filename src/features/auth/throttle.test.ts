/**
 * The sign-in brake against the real app and database: parallel guesses, strangers trying to
 * lock an owner out, the owner's failure notice by mail, and "Forgot password?" limits.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { startMailCapture, type MailCapture } from "../../../tests/support/mail-capture";
import { createMailer } from "../mail/mailer";
import { seedAdmin } from "../admin/seed";

const PUBLIC = "http://dw.example.test";
const PASSWORD = "violet tractor lantern";
const OWNER_ADDRESS = "198.51.100.10";
let capture: MailCapture;
let t: TestApp;

beforeAll(async () => {
  capture = await startMailCapture();
});
afterAll(() => capture.stop());
afterEach(() => t?.close());

async function app(options: { mail?: boolean } = {}) {
  const mailer = options.mail ? createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC }) : undefined;
  // a fixed clock: pauses do not run out while a test runs
  const clock = new Date();
  t = await makeTestApp({ config: { publicUrl: PUBLIC, trustProxy: true }, deps: { mailer, now: () => clock } });
  return t;
}

const from = (address: string) => ({ "x-forwarded-for": address });
const login = (email: string, password: string, address: string) => t.json("POST", "/api/auth/login", { body: { email, password }, headers: from(address) });
const adminLogin = (password: string, address: string) => t.json("POST", "/api/admin/login", { body: { username: "admin", password }, headers: from(address) });

/** A signed-up account whose email counts as verified (mail may go to it). */
async function owner(email: string) {
  const res = await t.json("POST", "/api/auth/signup", { body: { name: "Olive Owner", email, password: PASSWORD, organization: "Owner Org" }, headers: from(OWNER_ADDRESS) });
  expect(res.status).toBeLessThan(300);
  await t.deps.store.write((tx) => tx.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.email, email)));
  // the owner signs in from their usual address once
  expect((await login(email, PASSWORD, OWNER_ADDRESS)).status).toBe(200);
}

describe("parallel guesses", () => {
  test("100 wrong passwords sent at once with the right one late among them: the right one is refused", async () => {
    await app();
    await owner("parallel@example.test");
    const attempts = Array.from({ length: 100 }, (_, i) => login("parallel@example.test", i === 60 ? PASSWORD : `wrong guess ${i}`, "203.0.113.5"));
    const statuses = (await Promise.all(attempts)).map((r) => r.status);
    expect(statuses[60]).toBe(429);
    expect(statuses.filter((s) => s === 200)).toHaveLength(0);
    // only the first few were checked at all
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
  }, 60_000);

  test("the same burst against the Master Administrator: the right password is refused", async () => {
    await app();
    await seedAdmin(t.deps, "admin", PASSWORD);
    const attempts = Array.from({ length: 100 }, (_, i) => adminLogin(i === 60 ? PASSWORD : `wrong guess ${i}`, "203.0.113.5"));
    const results = await Promise.all(attempts);
    expect(results[60]!.status).toBe(429);
    expect(results.filter((r) => r.body.success === true)).toHaveLength(0);
    expect(results.filter((r) => r.body.success === false).length).toBeLessThanOrEqual(5);
  }, 60_000);
});

describe("a stranger cannot lock the owner out", () => {
  test("many failures from other addresses: the owner still signs in from their own address, and is told by mail", async () => {
    await app({ mail: true });
    await owner("locked@example.test");
    for (let i = 0; i < 30; i++) {
      const res = await login("locked@example.test", `stranger guess ${i}`, `203.0.113.${i + 1}`);
      expect([401, 429]).toContain(res.status);
    }
    // a further stranger is paced, not the owner
    const stranger = await login("locked@example.test", "stranger guess x", "192.0.2.200");
    expect(stranger.status).toBe(429);
    expect(Number(stranger.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(stranger.body.error.message).toContain("Too many failed sign-in attempts");

    const ok = await login("locked@example.test", PASSWORD, OWNER_ADDRESS);
    expect(ok.status).toBe(200);

    const mail = await capture.waitFor((m) => m.to.includes("locked@example.test") && m.subject.includes("Failed sign-in"));
    expect(mail.text).toContain("wrong password");
    expect(mail.text).toContain(`${PUBLIC}/login`);
    // at most one notice an hour
    await Bun.sleep(300);
    expect(capture.messages.filter((m) => m.to.includes("locked@example.test") && m.subject.includes("Failed sign-in"))).toHaveLength(1);
  }, 60_000);

  test("the Master Administrator too: strangers' failures do not block the admin's own address", async () => {
    await app();
    await seedAdmin(t.deps, "admin", PASSWORD);
    expect((await adminLogin(PASSWORD, OWNER_ADDRESS)).body.success).toBe(true);
    for (let i = 0; i < 30; i++) await adminLogin(`stranger guess ${i}`, `203.0.113.${i + 1}`);
    expect((await adminLogin("stranger guess x", "192.0.2.200")).status).toBe(429);
    const ok = await adminLogin(PASSWORD, OWNER_ADDRESS);
    expect(ok.status).toBe(200);
    expect(ok.body.success).toBe(true);
  }, 60_000);

  test("failures from one address block only that address for this account", async () => {
    await app();
    await owner("pair@example.test");
    for (let i = 0; i < 5; i++) expect((await login("pair@example.test", `guess ${i}`, "203.0.113.9")).status).toBe(401);
    expect((await login("pair@example.test", PASSWORD, "203.0.113.9")).status).toBe(429);
    expect((await login("pair@example.test", PASSWORD, OWNER_ADDRESS)).status).toBe(200);
  }, 30_000);
});

describe("forgot password", () => {
  test("a stranger's requests do not block the victim's reset from the victim's address", async () => {
    await app({ mail: true });
    await owner("victim@example.test");
    for (let i = 0; i < 12; i++) await t.json("POST", "/api/auth/password-link", { body: { email: "victim@example.test" }, headers: from(`203.0.113.${i + 1}`) });
    const stranger = await t.json("POST", "/api/auth/password-link", { body: { email: "victim@example.test" }, headers: from("192.0.2.200") });
    expect(stranger.status).toBe(429);
    const victim = await t.json("POST", "/api/auth/password-link", { body: { email: "victim@example.test" }, headers: from(OWNER_ADDRESS) });
    expect(victim.status).toBe(200);
  }, 30_000);
});
