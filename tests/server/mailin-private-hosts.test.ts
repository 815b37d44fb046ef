/**
 * The mailbox connection test and the poller are not a port scanner: loopback, private,
 * link-local and metadata addresses — given directly or through DNS — are refused without
 * connecting, with the same answer as a port where nothing listens, unless the operator allows
 * them with --allow-private-mailbox-hosts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { mailboxUnreachable } from "../../src/features/mailin/contract";
import { createResolver } from "../../src/features/dns/resolver";
import { makeTestApp, type TestApp } from "../support/app";
import { startDnsServer, type TestDnsServer } from "../support/dns-server";
import { signedInMember } from "../support/fixtures";

const PASSWORD = "mailbox-password-never-logged";

/** A TCP listener on loopback standing for an internal service; counts connections made to it. */
let internal: { port: number; connections: number; stop(): void };
let dns: TestDnsServer;
let t: TestApp | undefined;

beforeAll(async () => {
  const state = { connections: 0 };
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        state.connections++;
        socket.end();
      },
      data() {},
    },
  });
  internal = {
    port: listener.port,
    get connections() {
      return state.connections;
    },
    stop: () => listener.stop(true),
  };
  dns = await startDnsServer({
    "imap.internal.test": { A: ["127.0.0.1"] },
    "metadata.internal.test": { A: ["169.254.169.254"] },
    "v6.internal.test": { AAAA: ["fd00:ec2::254"] },
  });
});
afterAll(async () => {
  internal.stop();
  await dns.close();
});
afterEach(() => {
  t?.close();
  t = undefined;
});

async function app(allowPrivate = false) {
  t = await makeTestApp({ deps: { resolver: createResolver({ servers: [{ host: dns.host, port: dns.port }], cache: false }) } });
  t.deps.config.allowPrivateMailboxHosts = allowPrivate;
  return { t, admin: await signedInMember(t.deps.store, "owner") };
}

const mailbox = (host: string, port = internal.port) => ({ host, port, tls: false, username: "reports", password: PASSWORD, folder: "INBOX" });

describe("POST /api/settings/mailbox/test", () => {
  test.each(["127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "::ffff:7f00:1", "[::1]", "imap.internal.test", "metadata.internal.test", "v6.internal.test", "localhost"])(
    "%s is refused without a connection, with the answer a closed port gets",
    async (host) => {
      const { t, admin } = await app();
      const before = internal.connections;
      const res = await t.json("POST", "/api/settings/mailbox/test", { cookie: admin.cookie, body: mailbox(host) });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: false, error: mailboxUnreachable({ host, port: internal.port }) });
      expect(internal.connections).toBe(before);
      // the operator can see why; the password is never logged
      expect(t.logs.some((line) => line.includes("imap_test_failed") && line.includes("not public"))).toBe(true);
      expect(t.logs.some((line) => line.includes(PASSWORD))).toBe(false);
    },
  );

  test("a refused internal port and a closed port get the very same answer", async () => {
    const open = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void s.end(), data() {} } });
    const port = open.port;
    const strict = await app(false);
    const refused = await strict.t.json("POST", "/api/settings/mailbox/test", { cookie: strict.admin.cookie, body: mailbox("127.0.0.1", port) });
    strict.t.close();
    open.stop(true);
    const { t: allowed, admin } = await app(true);
    const closed = await allowed.json("POST", "/api/settings/mailbox/test", { cookie: admin.cookie, body: mailbox("127.0.0.1", port) });
    expect(closed.body.ok).toBe(false);
    expect(refused.body).toEqual(closed.body);
  });

  test("with --allow-private-mailbox-hosts a host name is connected at the address its DNS answer gave", async () => {
    const { t, admin } = await app(true);
    const before = internal.connections;
    const res = await t.json("POST", "/api/settings/mailbox/test", { cookie: admin.cookie, body: mailbox("imap.internal.test") });
    // the listener is not an IMAP server: the connection is made, then fails like any other
    expect(res.body).toEqual({ ok: false, error: mailboxUnreachable({ host: "imap.internal.test", port: internal.port }) });
    expect(internal.connections).toBe(before + 1);
    expect(dns.questions.filter((q) => q === "A imap.internal.test").length).toBeGreaterThan(0);
  });
});

describe("the saved mailbox", () => {
  test("a saved mailbox on an internal address is never connected to by a poll; the one message is recorded", async () => {
    const { t, admin } = await app();
    expect((await t.json("PUT", "/api/settings/mailbox", { cookie: admin.cookie, body: mailbox("imap.internal.test") })).status).toBe(200);
    const before = internal.connections;
    const res = await t.json("POST", "/api/settings/mailbox/poll", { cookie: admin.cookie });
    expect(res.status).toBe(200);
    const message = mailboxUnreachable({ host: "imap.internal.test", port: internal.port });
    expect(res.body).toMatchObject({ ok: false, error: message, mailbox: { lastError: message } });
    expect(internal.connections).toBe(before);
    const { reportMailboxes } = t.deps.store.t;
    expect((await t.deps.store.db.select().from(reportMailboxes).where(eq(reportMailboxes.orgId, admin.orgId)))[0]!.lastError).toBe(message);
    // the saved mailbox tested with nothing submitted is refused the same way
    const tested = await t.json("POST", "/api/settings/mailbox/test", { cookie: admin.cookie });
    expect(tested.body).toEqual({ ok: false, error: message });
    expect(internal.connections).toBe(before);
  });
});
