/**
 * Alerts with real local parts: a test DNS server whose records change, the SMTP capture as the
 * mail relay, and local HTTP receivers for the generic webhook (signature verified), Slack and
 * Teams. Deliveries are sent by calling the scheduler's tick (deliverDue) directly.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { deliverDue } from "../../src/features/alerts/delivery";
import { createResolver } from "../../src/features/dns/resolver";
import { createMailer } from "../../src/features/mail/mailer";
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "../../src/lib/alerts/webhook";
import { makeTestApp, type TestApp } from "../support/app";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { signedInMember, type SignedIn } from "../support/fixtures";
import { startMailCapture, type MailCapture } from "../support/mail-capture";

const PUBLIC = "http://dw.example.test";

interface Received {
  path: string;
  headers: Headers;
  body: string;
}

/** A local HTTP server that keeps every POST; `status` is what it answers. */
function startReceiver() {
  const received: Received[] = [];
  const state = { status: 200 };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ path: new URL(request.url).pathname, headers: request.headers, body: await request.text() });
      return new Response(state.status === 200 ? "ok" : "nope", { status: state.status });
    },
  });
  return { url: (path: string) => `http://127.0.0.1:${server.port}${path}`, received, state, stop: () => server.stop(true) };
}

let dns: TestDnsServer;
let capture: MailCapture;
let receiver: ReturnType<typeof startReceiver>;
let t: TestApp;
const tables = () => t.deps.store.t;
let clock = new Date();

beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
  capture = await startMailCapture();
  receiver = startReceiver();
});
afterAll(async () => {
  await dns.close();
  await capture.stop();
  receiver.stop();
});
afterEach(() => t?.close());

async function app(options: { allowPrivate?: boolean } = {}) {
  clock = new Date();
  const mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC });
  t = await makeTestApp({
    config: { publicUrl: PUBLIC, allowPrivateWebhookHosts: options.allowPrivate ?? true },
    deps: { mailer, now: () => clock, resolver: createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000 }) },
  });
  return t;
}

async function ownerWithoutDnsCache(): Promise<SignedIn> {
  const owner = await signedInMember(t.deps.store, "owner", `Alert Org ${crypto.randomUUID().slice(0, 6)}`);
  await t.deps.store.write((tx) => tx.insert(tables().organizationSettings).values({ orgId: owner.orgId, dnsCaching: false }));
  return owner;
}

const mailsTo = (address: string) => capture.messages.filter((m) => m.to.includes(address));
const hooksAt = (path: string) => receiver.received.filter((r) => r.path === path);

describe("a DNS change, POST /api/domains/:id/check, and the alerts it sends", () => {
  test("one email and one signed webhook per change; checking again sends none; revert and change again sends anew", async () => {
    await app();
    const owner = await ownerWithoutDnsCache();
    const address = `ops-${crypto.randomUUID().slice(0, 6)}@example.test`;
    const hookPath = `/hook-${crypto.randomUUID().slice(0, 6)}`;
    const email = await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "email", name: "Ops", target: address } });
    expect(email.status).toBe(201);
    expect(email.body.secret).toBeUndefined();
    const hook = await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "webhook", name: "SIEM", target: receiver.url(hookPath) } });
    expect(hook.status).toBe(201);
    const secret: string = hook.body.secret;
    expect(secret).toStartWith("whsec_");
    // the secret is shown once: never again
    const listed = await t.json("GET", "/api/alerts/channels", { cookie: owner.cookie });
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(listed.body.channels.map((c: any) => c.hasSecret)).toEqual([false, true]);

    const [domain] = await t.deps.store.db.insert(tables().domains).values({ orgId: owner.orgId, name: "good.test" }).returning();
    const first = await t.json("POST", `/api/domains/${domain!.id}/check`, { cookie: owner.cookie });
    expect(first.status).toBe(200);
    expect(first.body.domain.overallStatus).toBe("protected");
    expect(first.body.events).toEqual([]);

    const original = dns.zone["_smtp._tls.good.test"]!.TXT!;
    dns.zone["_smtp._tls.good.test"]!.TXT = ["v=TLSRPTv1; rua=mailto:tls-new@good.test"];
    const changed = await t.json("POST", `/api/domains/${domain!.id}/check`, { cookie: owner.cookie });
    expect(changed.body.events.map((e: any) => e.type)).toEqual(["dns.record_changed"]);
    expect(changed.body.events[0].title).toBe("TLS-RPT record changed for good.test");
    expect(await deliverDue(t.deps)).toBe(2);

    const mail = await capture.waitFor((m) => m.to.includes(address));
    expect(mail.subject).toContain("TLS-RPT record changed for good.test");
    expect(mail.subject).toContain("Alert Org");
    expect(mail.text).toContain(`${PUBLIC}/app/domains?domain=good.test`);
    expect(mail.html).toContain("tls-new@good.test");
    const hooks = hooksAt(hookPath);
    expect(hooks.length).toBe(1);
    const body = hooks[0]!.body;
    expect(verifyWebhookSignature(secret, hooks[0]!.headers.get(WEBHOOK_SIGNATURE_HEADER), body, clock)).toBe(true);
    expect(verifyWebhookSignature("whsec_wrong", hooks[0]!.headers.get(WEBHOOK_SIGNATURE_HEADER), body, clock)).toBe(false);
    const payload = JSON.parse(body);
    expect(payload).toMatchObject({ type: "dns.record_changed", domain: "good.test", organization: { id: owner.orgId }, data: { record: "tls_rpt", after: "v=TLSRPTv1; rua=mailto:tls-new@good.test" } });
    expect(hooks[0]!.headers.get("idempotency-key")).toBe(payload.id);

    // the same state again: nothing new
    const again = await t.json("POST", `/api/domains/${domain!.id}/check`, { cookie: owner.cookie });
    expect(again.body.events).toEqual([]);
    expect(await deliverDue(t.deps)).toBe(0);

    // reverted (a change too), then changed again: the same cause fires anew
    dns.zone["_smtp._tls.good.test"]!.TXT = original;
    expect((await t.json("POST", `/api/domains/${domain!.id}/check`, { cookie: owner.cookie })).body.events.length).toBe(1);
    dns.zone["_smtp._tls.good.test"]!.TXT = ["v=TLSRPTv1; rua=mailto:tls-new@good.test"];
    expect((await t.json("POST", `/api/domains/${domain!.id}/check`, { cookie: owner.cookie })).body.events.length).toBe(1);
    expect(await deliverDue(t.deps)).toBe(4);
    await capture.waitFor(() => mailsTo(address).length >= 3);
    expect(mailsTo(address).length).toBe(3);
    expect(hooksAt(hookPath).length).toBe(3);
    expect(new Set(hooksAt(hookPath).map((h) => JSON.parse(h.body).id)).size).toBe(3);

    // the events feed and the channel's delivery log
    const feed = await t.json("GET", "/api/events", { cookie: owner.cookie });
    expect(feed.body.total).toBe(3);
    expect(feed.body.unread).toBe(3);
    const log = await t.json("GET", `/api/alerts/channels/${hook.body.id}/deliveries`, { cookie: owner.cookie });
    expect(log.body.deliveries.length).toBe(3);
    expect(log.body.deliveries.every((d: any) => d.status === "delivered" && d.log.length === 1 && d.log[0].statusCode === 200)).toBe(true);
    dns.zone["_smtp._tls.good.test"]!.TXT = original;
    // five checks, seven deliveries and three mails on one store: more than the default 30 s on a loaded machine
  }, 90_000);

  test("an incomplete check (DNS failing) stores and raises nothing", async () => {
    await app();
    const owner = await ownerWithoutDnsCache();
    const [domain] = await t.deps.store.db.insert(tables().domains).values({ orgId: owner.orgId, name: "quarantine.test" }).returning();
    expect((await t.json("POST", `/api/domains/${domain!.id}/check`, { cookie: owner.cookie })).status).toBe(200);
    dns.zone["_dmarc.quarantine.test"]!.servfail = true;
    try {
      const res = await t.json("POST", `/api/domains/${domain!.id}/check`, { cookie: owner.cookie });
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe("dns_unavailable");
    } finally {
      delete dns.zone["_dmarc.quarantine.test"]!.servfail;
    }
    const { orgEvents } = t.deps.store.t;
    expect((await t.deps.store.db.select().from(tables().orgEvents).where(eq(tables().orgEvents.orgId, owner.orgId))).length).toBe(0);
  });
});

describe("channels", () => {
  test("Slack and Teams receivers get their formats from 'Send a test'", async () => {
    await app();
    const owner = await ownerWithoutDnsCache();
    const slack = await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "slack", name: "Slack", target: receiver.url("/slack") } });
    const teams = await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "teams", name: "Teams", target: receiver.url("/teams") } });
    expect((await t.json("POST", `/api/alerts/channels/${slack.body.id}/test`, { cookie: owner.cookie })).body).toMatchObject({ ok: true, statusCode: 200 });
    expect((await t.json("POST", `/api/alerts/channels/${teams.body.id}/test`, { cookie: owner.cookie })).body).toMatchObject({ ok: true, statusCode: 200 });
    const s = JSON.parse(hooksAt("/slack").at(-1)!.body);
    expect(s.text).toContain("Test alert from dmarcwarden");
    expect(s.blocks[0]).toMatchObject({ type: "header" });
    const m = JSON.parse(hooksAt("/teams").at(-1)!.body);
    expect(m.type).toBe("message");
    expect(m.attachments[0].contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(m.attachments[0].content.type).toBe("AdaptiveCard");
    // test events do not fill the bell
    expect((await t.json("GET", "/api/events", { cookie: owner.cookie })).body.total).toBe(0);
  });

  test("a failing receiver is retried on the schedule, every attempt logged, then given up", async () => {
    await app();
    const owner = await ownerWithoutDnsCache();
    const hook = await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "webhook", name: "Flaky", target: receiver.url("/flaky") } });
    receiver.state.status = 503;
    try {
      const test1 = await t.json("POST", `/api/alerts/channels/${hook.body.id}/test`, { cookie: owner.cookie });
      expect(test1.body).toMatchObject({ ok: false, statusCode: 503 });
      let log = (await t.json("GET", `/api/alerts/channels/${hook.body.id}/deliveries`, { cookie: owner.cookie })).body.deliveries;
      expect(log[0]).toMatchObject({ status: "pending", attempts: 1 });
      expect(new Date(log[0].nextAttemptAt).getTime()).toBe(new Date(log[0].createdAt).getTime() + 60_000);
      // not due yet
      expect(await deliverDue(t.deps)).toBe(0);
      for (const minutes of [1, 5, 20, 60]) {
        clock = new Date(new Date(log[0].createdAt).getTime() + minutes * 60_000);
        expect(await deliverDue(t.deps)).toBe(1);
      }
      log = (await t.json("GET", `/api/alerts/channels/${hook.body.id}/deliveries`, { cookie: owner.cookie })).body.deliveries;
      expect(log[0]).toMatchObject({ status: "failed", attempts: 5, nextAttemptAt: null, lastError: "the receiver answered HTTP 503" });
      expect(log[0].log.length).toBe(5);
      clock = new Date(clock.getTime() + 86_400_000);
      expect(await deliverDue(t.deps)).toBe(0);
    } finally {
      receiver.state.status = 200;
    }
  });

  test("targets are validated: addresses, https, no private hosts without the operator flag", async () => {
    await app({ allowPrivate: false });
    const owner = await ownerWithoutDnsCache();
    const post = (body: unknown) => t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body });
    expect((await post({ type: "email", name: "x", target: "ops@example.test, not-an-address" })).body.error.fields.target).toBe('"not-an-address" is not a valid email address');
    expect((await post({ type: "slack", name: "x", target: "http://hooks.slack.com/services/x" })).body.error.fields.target).toBe("The URL must start with https://");
    expect((await post({ type: "webhook", name: "x", target: "https://127.0.0.1:8443/hook" })).body.error.fields.target).toContain("private or local address");
    expect((await post({ type: "webhook", name: "x", target: "https://localhost/hook" })).status).toBe(400);
    expect((await post({ type: "webhook", name: "x", target: "https://[::1]/hook" })).status).toBe(400);
    expect((await post({ type: "pager", name: "x", target: "x" })).body.error.fields.type).toBe("Type must be email, slack, teams or webhook");
    expect((await post({ type: "email", name: "", target: "a@example.test" })).body.error.fields.name).toBe("Enter a name");
    const ok = await post({ type: "email", name: "Two", target: "A@Example.test; b@example.test" });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ target: "a@example.test, b@example.test", eventTypes: null, enabled: true });
    const narrowed = await t.json("PATCH", `/api/alerts/channels/${ok.body.id}`, { cookie: owner.cookie, body: { eventTypes: ["dns.dmarc_weakened"], enabled: false } });
    expect(narrowed.body).toMatchObject({ eventTypes: ["dns.dmarc_weakened"], enabled: false });
    expect((await t.json("PATCH", `/api/alerts/channels/${ok.body.id}`, { cookie: owner.cookie, body: { eventTypes: ["nope"] } })).status).toBe(400);
    expect((await t.json("DELETE", `/api/alerts/channels/${ok.body.id}`, { cookie: owner.cookie })).body).toEqual({ success: true });
    expect((await t.json("DELETE", `/api/alerts/channels/${ok.body.id}`, { cookie: owner.cookie })).status).toBe(404);
  });

  test("Settings' Email notifications keeps an email channel to the contact address", async () => {
    await app();
    const owner = await ownerWithoutDnsCache();
    const settings = (await t.json("GET", "/api/settings", { cookie: owner.cookie })).body;
    const save = (emailNotifications: boolean) => t.json("PUT", "/api/settings", { cookie: owner.cookie, body: { ...settings, updatedAt: undefined, canEdit: undefined, contactEmail: "contact@example.test", emailNotifications } });
    expect((await save(true)).status).toBe(200);
    let channels = (await t.json("GET", "/api/alerts/channels", { cookie: owner.cookie })).body.channels;
    expect(channels).toMatchObject([{ type: "email", name: "Email notifications", target: "contact@example.test", enabled: true }]);
    await save(false);
    channels = (await t.json("GET", "/api/alerts/channels", { cookie: owner.cookie })).body.channels;
    expect(channels).toMatchObject([{ type: "email", enabled: false }]);
    await save(true);
    channels = (await t.json("GET", "/api/alerts/channels", { cookie: owner.cookie })).body.channels;
    expect(channels.length).toBe(1);
    expect(channels[0].enabled).toBe(true);
  });

  test("thresholds: defaults, validated overrides, admins only", async () => {
    await app();
    const owner = await ownerWithoutDnsCache();
    const read = await t.json("GET", "/api/alerts/thresholds", { cookie: owner.cookie });
    expect(read.body.thresholds.passRateBelow).toBe(90);
    const saved = await t.json("PUT", "/api/alerts/thresholds", { cookie: owner.cookie, body: { passRateBelow: 95, reportsStoppedHours: 48 } });
    expect(saved.body.thresholds).toMatchObject({ passRateBelow: 95, reportsStoppedHours: 48, newSourceMinFailed: 10 });
    expect((await t.json("PUT", "/api/alerts/thresholds", { cookie: owner.cookie, body: { passRateBelow: 150 } })).status).toBe(400);
    expect((await t.json("PUT", "/api/alerts/thresholds", { cookie: owner.cookie, body: { madeUp: 1 } })).status).toBe(400);
  });
});

describe("the notifications bell", () => {
  test("read and unread per user; Mark all read", async () => {
    await app();
    const owner = await ownerWithoutDnsCache();
    const { memberships } = t.deps.store.t;
    const at = Date.now();
    await t.deps.store.write((tx) =>
      tx.insert(tables().orgEvents).values(Array.from({ length: 25 }, (_, i) => ({ orgId: owner.orgId, type: "reports.stopped", domain: "a.test", data: JSON.stringify({ silentHours: 80 + i }), dedupeKey: `k${i}`, occurredAt: new Date(at - i * 60_000) }))),
    );
    const page1 = await t.json("GET", "/api/events", { cookie: owner.cookie });
    expect(page1.body).toMatchObject({ page: 1, pageSize: 20, total: 25, unread: 25 });
    expect(page1.body.events[0].data.silentHours).toBe(80);
    expect(page1.body.events[0].title).toBe("No DMARC reports for a.test for 80 hours");
    const page2 = await t.json("GET", "/api/events?page=2", { cookie: owner.cookie });
    expect(page2.body.events.length).toBe(5);
    expect((await t.json("GET", "/api/events?page=0", { cookie: owner.cookie })).status).toBe(400);
    const read = await t.json("POST", "/api/events/read", { cookie: owner.cookie, body: { ids: [page1.body.events[0].id, page1.body.events[1].id] } });
    expect(read.body.unread).toBe(23);
    // another member of the organisation has read nothing
    const [membership] = await t.deps.store.db.select().from(memberships).where(and(eq(memberships.orgId, owner.orgId)));
    expect(membership).toBeTruthy();
    expect((await t.json("POST", "/api/events/read-all", { cookie: owner.cookie })).body.unread).toBe(0);
    expect((await t.json("GET", "/api/events", { cookie: owner.cookie })).body.unread).toBe(0);
  });
});
