/**
 * Requests to hosts an organization names (alert channels, its single sign-on issuer) look the
 * name up once, through the server's resolver (here the test DNS server, which knows names the
 * system's resolver does not), check every address answered, and connect to the address they
 * checked: a name that answers one address to a check and another later (rebinding, TTL 0)
 * never moves the connection. Only loopback receivers are ever connected to.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createResolver } from "../../src/features/dns/resolver";
import { makeTestApp, type TestApp } from "../support/app";
import { startDnsServer, type TestDnsServer } from "../support/dns-server";
import { addMember, createOrg, createUser, signedInMember, signIn, type SignedIn } from "../support/fixtures";
import { signInAtProvider, startOidcProvider, type TestOidcProvider } from "../support/oidc-provider";

interface Received {
  path: string;
  host: string | null;
}

/** A local HTTP server on `hostname` that keeps every request it gets. */
function startReceiver(hostname: string) {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname,
    async fetch(request) {
      await request.arrayBuffer();
      received.push({ path: new URL(request.url).pathname, host: request.headers.get("host") });
      return new Response("ok");
    },
  });
  return { port: server.port!, received, stop: () => server.stop(true) };
}

const CALLBACK = "http://localhost/api/auth/sso/callback";
const ACME = { clientId: "dmarcwarden-acme", clientSecret: "acme-client-secret-4b1d0c9e7f", redirectUris: [CALLBACK] };

let dns: TestDnsServer;
let receiver: ReturnType<typeof startReceiver>;
/** a second loopback receiver: where a rebinding name points after its first answer */
let other: ReturnType<typeof startReceiver>;
let idp: TestOidcProvider;

beforeAll(async () => {
  receiver = startReceiver("127.0.0.1");
  other = startReceiver("127.0.0.2");
  idp = await startOidcProvider({ clients: [ACME], host: "idp.acme-sso.test" });
  dns = await startDnsServer({
    "hooks.customer.test": { A: ["127.0.0.1"], ttl: 0 },
    // answers the receiver to the first question, the other loopback receiver to every later one
    "moving.customer.test": { A: ["127.0.0.1"], then: [{ A: ["127.0.0.2"] }], ttl: 0 },
    // loopback, then link-local: never a public address, so nothing but loopback is ever reached
    "internal.customer.test": { A: ["127.0.0.1"], then: [{ A: ["169.254.169.254"] }], ttl: 0 },
    "idp.acme-sso.test": { A: ["127.0.0.1"], ttl: 0 },
  });
});
afterAll(async () => {
  receiver.stop();
  other.stop();
  await Promise.all([dns.close(), idp.close()]);
});

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
  receiver.received.length = 0;
  other.received.length = 0;
});

const resolver = () => createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000 });
const asked = (name: string) => dns.questions.filter((q) => q === `A ${name}`).length;

async function appWithChannels(allowPrivate: boolean): Promise<{ t: TestApp; owner: SignedIn }> {
  t = await makeTestApp({ config: { allowPrivateWebhookHosts: allowPrivate }, deps: { resolver: resolver() } });
  return { t, owner: await signedInMember(t.deps.store, "owner", `Hooks ${crypto.randomUUID().slice(0, 6)}`) };
}

/** Adds a webhook channel to `target` and presses "Send a test": the attempt's outcome and the stored delivery. */
async function sendTest(t: TestApp, owner: SignedIn, target: string) {
  const channel = await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "webhook", name: "Receiver", target } });
  expect(channel.status).toBe(201);
  const sent = await t.json("POST", `/api/alerts/channels/${channel.body.id}/test`, { cookie: owner.cookie });
  const log = await t.json("GET", `/api/alerts/channels/${channel.body.id}/deliveries`, { cookie: owner.cookie });
  return { sent: sent.body, delivery: log.body.deliveries[0] };
}

describe("alert channels connect to the address they checked", () => {
  test("with --allow-private-webhook-hosts, a name the server's resolver points at a local receiver is posted there, naming the host", async () => {
    const { t, owner } = await appWithChannels(true);
    const { sent } = await sendTest(t, owner, `http://hooks.customer.test:${receiver.port}/hook`);
    expect(sent).toMatchObject({ ok: true, statusCode: 200 });
    expect(receiver.received).toEqual([{ path: "/hook", host: `hooks.customer.test:${receiver.port}` }]);
  });

  test("a name whose answer changes after the first question: the webhook goes to the address that was checked, looked up once", async () => {
    const { t, owner } = await appWithChannels(true);
    const before = asked("moving.customer.test");
    const { sent } = await sendTest(t, owner, `http://moving.customer.test:${receiver.port}/moved`);
    expect(sent).toMatchObject({ ok: true, statusCode: 200 });
    expect(receiver.received).toEqual([{ path: "/moved", host: `moving.customer.test:${receiver.port}` }]);
    expect(other.received).toEqual([]);
    expect(asked("moving.customer.test") - before).toBe(1);
  });

  test("without the flag, a name answering a loopback address is refused before any connection, and the refusal names the flag", async () => {
    const { t, owner } = await appWithChannels(false);
    const { sent, delivery } = await sendTest(t, owner, `https://hooks.customer.test:${receiver.port}/hook`);
    expect(sent).toMatchObject({ ok: false, statusCode: null });
    expect(delivery).toMatchObject({ status: "failed", lastError: `hooks.customer.test resolves to 127.0.0.1 (loopback); --allow-private-webhook-hosts permits it` });
    expect(receiver.received).toEqual([]);
  });
});

describe("the single sign-on issuer is reached at the address that was checked", () => {
  async function world(allowInsecure: boolean) {
    t = await makeTestApp({ config: { allowInsecureOidc: allowInsecure }, deps: { resolver: resolver() } });
    const orgId = await createOrg(t.deps.store, "Acme Corp");
    const ownerId = await createUser(t.deps.store, "owner@acme.test", "Acme Owner");
    await addMember(t.deps.store, orgId, ownerId, "owner");
    return { t, owner: await signIn(t.deps.store, ownerId, orgId) };
  }
  const settings = (issuer: string) => ({ issuer, clientId: ACME.clientId, clientSecret: ACME.clientSecret, allowedDomains: "acme.test", newUserRole: "member", enabled: true });

  test("with --allow-insecure-oidc, an issuer named by a host the server's resolver points at the provider: discovery, token and keys all reach it", async () => {
    const { t, owner } = await world(true);
    expect(idp.issuer).toStartWith("http://idp.acme-sso.test:");
    const saved = await t.json("PUT", "/api/sso", { cookie: owner, body: settings(idp.issuer) });
    expect(saved.status).toBe(200);
    // the allowed domain is used only once its proof record is published and checked
    const { connection } = (await t.json("GET", "/api/sso", { cookie: owner })).body;
    for (const { record } of connection.domains as { record: { name: string; value: string } }[]) dns.zone[record.name] = { TXT: [record.value] };
    expect((await t.json("POST", "/api/sso/domains/check", { cookie: owner })).status).toBe(200);
    const started = await t.json("POST", "/api/auth/sso/start", { body: { identifier: "ada@acme.test" } });
    expect(started.status).toBe(200);
    const flow = started.headers.getSetCookie().find((c) => c.startsWith("dw_sso="))!.split(";")[0];
    const back = await signInAtProvider(started.body.redirectUrl, "ada@acme.test", undefined, "127.0.0.1");
    const done = await t.request("GET", `${back.pathname}${back.search}`, { cookie: flow });
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe("/app");
  });

  test("without it, an issuer whose name answers a loopback address is refused, naming the flag, and nothing is stored", async () => {
    const { t, owner } = await world(false);
    const refused = await t.json("PUT", "/api/sso", { cookie: owner, body: settings("https://internal.customer.test") });
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields.issuer).toBeTruthy();
    expect(t.logs.join("\n")).toContain("internal.customer.test resolves to 127.0.0.1 (loopback); --allow-insecure-oidc permits it");
    expect(await t.deps.store.db.select().from(t.deps.store.t.ssoConnections)).toHaveLength(0);
  });
});
