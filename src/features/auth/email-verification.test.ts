/**
 * Sign-up with a mail relay: no answer tells whether an email has an account, new addresses
 * are verified by a mailed link before any other mail goes to them. Without a relay, 409 stays.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { cookieFrom, makeTestApp, type TestApp } from "../../../tests/support/app";
import { linkIn, startMailCapture, type MailCapture } from "../../../tests/support/mail-capture";
import { createMailer } from "../mail/mailer";
import { VERIFICATION_SENT_MESSAGE } from "./email-verification";

const PUBLIC = "http://dw.example.test";
let capture: MailCapture;
let t: TestApp;

beforeAll(async () => {
  capture = await startMailCapture();
});
afterAll(() => capture.stop());
afterEach(() => t?.close());

async function app(mail: boolean) {
  const mailer = mail ? createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC }) : undefined;
  const clock = new Date();
  t = await makeTestApp({ config: { publicUrl: PUBLIC, trustProxy: true }, deps: { mailer, now: () => clock } });
  return t;
}

const unique = (name: string) => `${name}-${crypto.randomUUID().slice(0, 8)}@example.test`;
const body = (email: string, password = "violet tractor lantern") => ({ name: "Vera Verify", email, password, organization: "Verify Org" });
const mailsTo = (email: string) => capture.messages.filter((m) => m.to.includes(email));

describe("sign-up with a mail relay", () => {
  test("a taken email gets the same answer as a new one, and its owner is mailed instead", async () => {
    await app(true);
    const taken = unique("taken");
    const first = await t.json("POST", "/api/auth/signup", { body: body(taken) });
    await t.json("POST", "/api/auth/verify-email", { body: { token: new URL(linkIn(await capture.waitFor((m) => m.to.includes(taken)), `${PUBLIC}/verify-email`)).searchParams.get("token") } });

    const again = await t.json("POST", "/api/auth/signup", { body: body(taken, "another fine passphrase") });
    const fresh = await t.json("POST", "/api/auth/signup", { body: body(unique("fresh")) });
    expect(again.status).toBe(202);
    expect(fresh.status).toBe(202);
    expect(again.body).toEqual(fresh.body);
    expect(again.body).toEqual(first.body);
    expect(again.body.message).toBe(VERIFICATION_SENT_MESSAGE);
    expect(cookieFrom(again, "dw_session")).toBeUndefined();
    expect(cookieFrom(fresh, "dw_session")).toBeUndefined();

    const notice = await capture.waitFor((m) => m.to.includes(taken) && m.subject === "You already have a dmarcwarden account");
    expect(notice.text).toContain(`${PUBLIC}/login`);
    // the owner's password did not change
    expect((await t.json("POST", "/api/auth/login", { body: { email: taken, password: "violet tractor lantern" } })).status).toBe(200);
  }, 30_000);

  test("the verification link marks the account and signs in; before that it cannot sign in and gets no other mail", async () => {
    await app(true);
    const email = unique("new");
    expect((await t.json("POST", "/api/auth/signup", { body: body(email) })).status).toBe(202);
    const mail = await capture.waitFor((m) => m.to.includes(email) && m.subject === "Confirm your email address for dmarcwarden");
    const link = linkIn(mail, `${PUBLIC}/verify-email`);
    expect(link).toStartWith(`${PUBLIC}/verify-email?token=`);
    expect((await t.deps.store.db.select().from(users).where(eq(users.email, email)))[0]!.emailVerifiedAt).toBeNull();

    const early = await t.json("POST", "/api/auth/login", { body: { email, password: "violet tractor lantern" } });
    expect(early.status).toBe(403);
    expect(early.body.error.message).toContain("Confirm your email address first");
    // repeated failed sign-ins would notify a verified owner; an unverified address gets nothing
    for (let i = 0; i < 6; i++) await t.json("POST", "/api/auth/login", { body: { email, password: `wrong guess ${i}` }, headers: { "x-forwarded-for": `203.0.113.${i + 1}` } });
    await Bun.sleep(300);
    expect(mailsTo(email).filter((m) => m.subject.includes("Failed sign-in"))).toHaveLength(0);

    const token = new URL(link).searchParams.get("token")!;
    const verified = await t.json("POST", "/api/auth/verify-email", { body: { token } });
    expect(verified.status).toBe(200);
    expect(verified.body.user.email).toBe(email);
    expect(verified.body.currentOrg.name).toBe("Verify Org");
    expect((await t.json("GET", "/api/auth/me", { cookie: cookieFrom(verified, "dw_session") })).status).toBe(200);
    expect((await t.deps.store.db.select().from(users).where(eq(users.email, email)))[0]!.emailVerifiedAt).not.toBeNull();
    // used once
    expect((await t.json("POST", "/api/auth/verify-email", { body: { token } })).status).toBe(404);
  }, 30_000);
});

describe("sign-up without a mail relay", () => {
  test("works as before: signed in at once, a taken email is 409", async () => {
    await app(false);
    const email = unique("plain");
    const first = await t.json("POST", "/api/auth/signup", { body: body(email) });
    expect(first.status).toBe(201);
    expect(cookieFrom(first, "dw_session")).toBeTruthy();
    const again = await t.json("POST", "/api/auth/signup", { body: body(email) });
    expect(again.status).toBe(409);
  });
});
