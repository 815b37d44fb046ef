/**
 * The report address and report mailbox settings API: who may read and change them, that
 * the password is stored encrypted and never returned, and that one organisation can never
 * see or touch another's mailbox.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import type { Role } from "../../src/db/schema";
import { mailboxUnreachable } from "../../src/features/mailin/contract";
import { decryptSecret } from "../../src/features/mailin/secret-box";
import { serverKey } from "../../src/features/mailin/server-key";
import type { Config } from "../../src/config";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createUser, signedInMember, signIn } from "../support/fixtures";

const PASSWORD = "correct horse battery staple";
const MAILBOX = { host: "imap.example.com", port: 993, tls: true, username: "dmarc@example.com", password: PASSWORD, folder: "INBOX" };

let t: TestApp | null = null;
afterEach(() => {
  t?.close();
  t = null;
});

async function app(config: Partial<Config> = {}) {
  t = await makeTestApp({ config });
  return t;
}

/** the stored mailbox rows, all or one organisation's */
async function mailboxRows(app: TestApp, orgId?: string) {
  const { store } = app.deps;
  const query = store.db.select().from(store.t.reportMailboxes);
  return orgId ? query.where(eq(store.t.reportMailboxes.orgId, orgId)) : query;
}

async function memberOf(app: TestApp, orgId: string, role: Role) {
  const userId = await createUser(app.deps.store);
  await addMember(app.deps.store, orgId, userId, role);
  return await signIn(app.deps.store, userId, orgId);
}

describe("GET /api/settings/report-address", () => {
  test("gives the organization's own address as rua/ruf when the SMTP receiver is on", async () => {
    const t = await app({ smtpPort: 2525, smtpDomain: "reports.example.net" });
    const a = await signedInMember(t.deps.store, "viewer");
    const b = await signedInMember(t.deps.store, "owner");
    const { store } = t.deps;
    const tokenOf = async (orgId: string) => (await store.db.select().from(store.t.organizations).where(eq(store.t.organizations.id, orgId)))[0]!.reportToken;
    const res = await t.json("GET", "/api/settings/report-address", { cookie: a.cookie });
    expect(res.status).toBe(200);
    const address = `${await tokenOf(a.orgId)}@reports.example.net`;
    expect(res.body).toEqual({ address, rua: `mailto:${address}`, ruf: `mailto:${address}` });
    const other = await t.json("GET", "/api/settings/report-address", { cookie: b.cookie });
    expect(other.body.address).toBe(`${await tokenOf(b.orgId)}@reports.example.net`);
  });

  test("is null when the SMTP receiver is off, and needs a session", async () => {
    const t = await app();
    const a = await signedInMember(t.deps.store, "owner");
    expect((await t.json("GET", "/api/settings/report-address", { cookie: a.cookie })).body).toEqual({ address: null });
    expect((await t.json("GET", "/api/settings/report-address")).status).toBe(401);
  });
});

describe("report mailbox settings", () => {
  test("an admin saves a mailbox; the password is stored encrypted and never returned", async () => {
    const t = await app();
    const admin = await signedInMember(t.deps.store, "admin");
    const saved = await t.json("PUT", "/api/settings/mailbox", { cookie: admin.cookie, body: MAILBOX });
    expect(saved.status).toBe(200);
    expect(saved.body.mailbox).toMatchObject({ host: "imap.example.com", port: 993, tls: true, username: "dmarc@example.com", folder: "INBOX", hasPassword: true, lastPolledAt: null });
    expect(JSON.stringify(saved.body)).not.toContain(PASSWORD);

    const read = await t.json("GET", "/api/settings/mailbox", { cookie: admin.cookie });
    expect(read.body.mailbox.hasPassword).toBe(true);
    expect(JSON.stringify(read.body)).not.toContain(PASSWORD);
    expect(read.body.mailbox).not.toHaveProperty("password");
    expect(read.body.mailbox).not.toHaveProperty("passwordEncrypted");

    // not in plain text anywhere in the database file's row, yet readable with the server key
    const raw = await t.deps.store.rows(sql`SELECT * FROM report_mailboxes`);
    expect(JSON.stringify(raw)).not.toContain(PASSWORD);
    expect(JSON.stringify(raw)).not.toContain(Buffer.from(PASSWORD).toString("base64"));
    const row = (await mailboxRows(t))[0]!;
    expect(row.passwordEncrypted).toStartWith("v1.");
    expect(decryptSecret(serverKey(t.deps), row.passwordEncrypted, admin.orgId)).toBe(PASSWORD);
    // bound to its organisation: the same ciphertext does not open for another one
    expect(() => decryptSecret(serverKey(t.deps), row.passwordEncrypted, "another-org")).toThrow();
  });

  test("saving again without a password keeps the stored one", async () => {
    const t = await app();
    const admin = await signedInMember(t.deps.store, "owner");
    await t.json("PUT", "/api/settings/mailbox", { cookie: admin.cookie, body: MAILBOX });
    const before = (await mailboxRows(t))[0]!.passwordEncrypted;
    const res = await t.json("PUT", "/api/settings/mailbox", { cookie: admin.cookie, body: { ...MAILBOX, password: "", folder: "DMARC" } });
    expect(res.status).toBe(200);
    expect(res.body.mailbox.folder).toBe("DMARC");
    const row = (await mailboxRows(t))[0]!;
    expect(row.passwordEncrypted).toBe(before);
  });

  test("a new mailbox needs a password; bad fields say what to fix", async () => {
    const t = await app();
    const admin = await signedInMember(t.deps.store, "owner");
    const noPassword = await t.json("PUT", "/api/settings/mailbox", { cookie: admin.cookie, body: { ...MAILBOX, password: "" } });
    expect(noPassword.status).toBe(400);
    expect(noPassword.body.error.fields.password).toBe("Enter the mailbox password");
    for (const [body, field] of [
      [{ ...MAILBOX, host: "not a host!" }, "host"],
      [{ ...MAILBOX, port: 70000 }, "port"],
      [{ ...MAILBOX, port: "993" }, "port"],
      [{ ...MAILBOX, username: " " }, "username"],
      [{ ...MAILBOX, folder: "Processed" }, "folder"],
      [{ ...MAILBOX, tls: "yes" }, "tls"],
    ] as const) {
      const res = await t.json("PUT", "/api/settings/mailbox", { cookie: admin.cookie, body });
      expect(res.status).toBe(400);
      expect(res.body.error.fields).toHaveProperty(field);
    }
    expect(await mailboxRows(t)).toHaveLength(0);
  });

  test("DELETE removes the mailbox; deleting none is 404", async () => {
    const t = await app();
    const admin = await signedInMember(t.deps.store, "owner");
    await t.json("PUT", "/api/settings/mailbox", { cookie: admin.cookie, body: MAILBOX });
    expect((await t.json("DELETE", "/api/settings/mailbox", { cookie: admin.cookie })).status).toBe(200);
    expect((await t.json("GET", "/api/settings/mailbox", { cookie: admin.cookie })).body).toEqual({ mailbox: null });
    expect((await t.json("DELETE", "/api/settings/mailbox", { cookie: admin.cookie })).status).toBe(404);
  });

  test("viewers and members may read but not change the mailbox", async () => {
    const t = await app();
    const owner = await signedInMember(t.deps.store, "owner");
    await t.json("PUT", "/api/settings/mailbox", { cookie: owner.cookie, body: MAILBOX });
    for (const role of ["viewer", "member"] as const) {
      const cookie = await memberOf(t, owner.orgId, role);
      const read = await t.json("GET", "/api/settings/mailbox", { cookie });
      expect(read.status).toBe(200);
      expect(read.body.mailbox.host).toBe("imap.example.com");
      expect((await t.json("PUT", "/api/settings/mailbox", { cookie, body: { ...MAILBOX, host: "evil.example" } })).status).toBe(403);
      expect((await t.json("DELETE", "/api/settings/mailbox", { cookie })).status).toBe(403);
      expect((await t.json("POST", "/api/settings/mailbox/test", { cookie, body: {} })).status).toBe(403);
      expect((await t.json("POST", "/api/settings/mailbox/poll", { cookie })).status).toBe(403);
    }
    expect((await mailboxRows(t))[0]!.host).toBe("imap.example.com");
    expect((await t.json("GET", "/api/settings/mailbox")).status).toBe(401);
  });

  test("another organization never sees or changes this organization's mailbox", async () => {
    const t = await app();
    const home = await signedInMember(t.deps.store, "owner");
    const foreign = await signedInMember(t.deps.store, "owner");
    await t.json("PUT", "/api/settings/mailbox", { cookie: home.cookie, body: MAILBOX });

    expect((await t.json("GET", "/api/settings/mailbox", { cookie: foreign.cookie })).body).toEqual({ mailbox: null });
    expect((await t.json("DELETE", "/api/settings/mailbox", { cookie: foreign.cookie })).status).toBe(404);
    // the stored mailbox is tested only with its own organisation's session
    const probe = await t.json("POST", "/api/settings/mailbox/test", { cookie: foreign.cookie, body: {} });
    expect(probe.status).toBe(404);
    expect((await t.json("POST", "/api/settings/mailbox/poll", { cookie: foreign.cookie })).status).toBe(404);
    // testing new settings without a password never borrows the other organisation's
    const borrow = await t.json("POST", "/api/settings/mailbox/test", { cookie: foreign.cookie, body: { ...MAILBOX, password: "" } });
    expect(borrow.status).toBe(400);
    // a foreign PUT writes the foreign organisation's own row, never the home one
    await t.json("PUT", "/api/settings/mailbox", { cookie: foreign.cookie, body: { ...MAILBOX, host: "foreign.example", password: "x" } });
    const rows = await mailboxRows(t);
    expect(rows.find((r) => r.orgId === home.orgId)!.host).toBe("imap.example.com");
    expect(rows.find((r) => r.orgId === foreign.orgId)!.host).toBe("foreign.example");
    // an organisation id in the body is ignored
    await t.json("PUT", "/api/settings/mailbox", { cookie: foreign.cookie, body: { ...MAILBOX, host: "again.example", orgId: home.orgId } });
    expect((await mailboxRows(t, home.orgId))[0]!.host).toBe("imap.example.com");
  });

  test("the connection test answers a port with nothing listening with the one failure message; the cause goes to the log", async () => {
    const t = await app({ allowPrivateMailboxHosts: true });
    const admin = await signedInMember(t.deps.store, "owner");
    const closed = Bun.serve({ port: 0, fetch: () => new Response() });
    const port = closed.port!;
    closed.stop(true);
    const res = await t.json("POST", "/api/settings/mailbox/test", { cookie: admin.cookie, body: { ...MAILBOX, host: "127.0.0.1", port, tls: false } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: false, error: mailboxUnreachable({ host: "127.0.0.1", port }) });
    expect(t.logs.some((line) => line.includes("imap_test_failed") && line.includes("connection refused"))).toBe(true);
    expect(t.logs.some((line) => line.includes(PASSWORD))).toBe(false);
  });
});
