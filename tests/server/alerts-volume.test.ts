/**
 * The bound on outbound alerts: a burst of reports that each raise an alert reaches each channel
 * (the SMTP capture, a local webhook receiver) at most the organisation's limit of times in 10
 * minutes, then as exactly one summary listing what was held; the feed keeps every alert; the
 * limit is the organisation's own (Settings) and another organisation's alerts are not held.
 * Time is the test's clock; deliveries go out by calling the scheduler's tick (deliverDue).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { deliverDue } from "../../src/features/alerts/delivery";
import { createMailer } from "../../src/features/mail/mailer";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";
import { startMailCapture, type MailCapture } from "../support/mail-capture";
import { sampleAggregate, xmlBytes } from "../support/report-fixtures";

const PUBLIC = "http://dw.example.test";
const HOUR = 3_600_000;
const MINUTE = 60_000;
// a burst of uploads on a shared machine can take longer than the runner's default limit (not asserted)

/** A local HTTP server that keeps every POST, by path. */
function startReceiver() {
  const received: { path: string; body: string }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ path: new URL(request.url).pathname, body: await request.text() });
      return new Response("ok");
    },
  });
  return { url: (path: string) => `http://127.0.0.1:${server.port}${path}`, received, stop: () => server.stop(true) };
}

let capture: MailCapture;
let receiver: ReturnType<typeof startReceiver>;
let t: TestApp;
let clock = new Date();

beforeAll(async () => {
  capture = await startMailCapture();
  receiver = startReceiver();
});
afterAll(async () => {
  await capture.stop();
  receiver.stop();
});
afterEach(async () => {
  await reverseDnsSettled();
  await t?.close();
});

async function app() {
  clock = new Date();
  const mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC });
  t = await makeTestApp({ config: { publicUrl: PUBLIC, allowPrivateWebhookHosts: true }, deps: { mailer, now: () => clock } });
}

interface Org {
  owner: SignedIn;
  address: string;
  hookPath: string;
  domain: string;
}

/** An organisation with a domain, an email channel and a webhook channel. */
async function org(): Promise<Org> {
  const tag = crypto.randomUUID().slice(0, 8);
  const owner = await signedInMember(t.deps.store, "owner", `Burst Org ${tag}`);
  const domain = `burst-${tag}.test`;
  await t.deps.store.db.insert(t.deps.store.t.domains).values({ orgId: owner.orgId, name: domain });
  const address = `ops-${tag}@example.test`;
  const hookPath = `/hook-${tag}`;
  expect((await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "email", name: "Ops", target: address } })).status).toBe(201);
  expect((await t.json("POST", "/api/alerts/channels", { cookie: owner.cookie, body: { type: "webhook", name: "SIEM", target: receiver.url(hookPath) } })).status).toBe(201);
  return { owner, address, hookPath, domain };
}

let sourceSeq = 0;
/** Uploads one aggregate report whose only source is new and fails DMARC in volume: one alert. */
async function failingReport(o: Org) {
  const begin = new Date(clock.getTime() - 20 * HOUR);
  const n = ++sourceSeq;
  const report = sampleAggregate(o.domain, {
    reportId: `burst-${n}-${crypto.randomUUID()}`,
    begin,
    end: new Date(begin.getTime() + 10 * HOUR),
    records: [{ sourceIp: `198.51.${(n >> 8) & 255}.${n & 255}`, count: 25, dkim: "fail", spf: "fail", spfAuth: [{ domain: "spoof.example", result: "fail" }] }],
  });
  const form = new FormData();
  form.append("files", new File([xmlBytes(report) as Uint8Array<ArrayBuffer>], `r${n}.xml`));
  const res = await t.json("POST", "/api/reports/upload", { body: form, cookie: o.owner.cookie });
  expect(res.body.results[0].status).toBe("ingested");
}

const mailsTo = (address: string) => capture.messages.filter((m) => m.to.includes(address));
const hooksAt = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as { type: string; data: any });
const later = (ms: number) => (clock = new Date(clock.getTime() + ms));
/** The delivery tick (the capture keeps a mail before the relay accepts it, so it is there once this returns). */
const tick = (_o?: Org) => deliverDue(t.deps);

describe("the bound on outbound alerts", () => {
  test("a burst of 40 alerting reports: 10 deliveries per channel, then exactly one summary listing the causes; the feed has every alert; another organisation is not held", async () => {
    await app();
    const a = await org();
    const b = await org();
    for (let i = 0; i < 40; i++) await failingReport(a);
    const feed = await t.json("GET", "/api/events", { cookie: a.owner.cookie });
    const raised: number = feed.body.total;
    // every report raised a new failing source (the first one a low pass rate too)
    expect(raised).toBeGreaterThanOrEqual(40);
    await tick(a);
    expect(mailsTo(a.address).length).toBe(10);
    expect(hooksAt(a.hookPath).length).toBe(10);

    // the other organisation's alert goes out at once
    await failingReport(b);
    await tick(b);
    expect(mailsTo(b.address).length).toBeGreaterThanOrEqual(1);
    expect(hooksAt(b.hookPath).length).toBe(mailsTo(b.address).length);

    // more within the window: still held; no summary before the window has room
    later(5 * MINUTE);
    await failingReport(a);
    await tick(a);
    expect(mailsTo(a.address).length).toBe(10);
    expect(hooksAt(a.hookPath).length).toBe(10);

    later(5 * MINUTE + 1000);
    await tick(a);
    await tick(a);
    const held = raised + 1 - 10;
    const mails = mailsTo(a.address);
    expect(mails.length).toBe(11);
    const summary = mails[10]!;
    expect(summary.subject).toContain(`${held} more alerts held back`);
    expect(summary.text).toContain("at most 10 alerts every 10 minutes");
    expect(summary.text).toContain("New source failing DMARC");
    expect(summary.text).toContain(`${a.domain} (${held})`);
    expect(summary.text).toMatch(/198\.51\.\d+\.\d+, /);
    expect(summary.text).toContain(`${PUBLIC}/app/dashboard`);
    // bounded: at most 10 sources named, the rest counted
    expect(summary.text).toMatch(/and \d+ more/);
    const hooks = hooksAt(a.hookPath);
    expect(hooks.length).toBe(11);
    expect(hooks[10]).toMatchObject({ type: "alerts.summary", data: { held, limit: 10, windowMinutes: 10, domains: [{ domain: a.domain, count: held }] } });
    expect(hooks[10]!.data.kinds.reduce((n: number, k: { count: number }) => n + k.count, 0)).toBe(held);
    const failingHeld = hooks[10]!.data.kinds.find((k: { type: string }) => k.type === "reports.new_failing_source").count;
    expect(hooks[10]!.data.sources.length + hooks[10]!.data.moreSources).toBe(failingHeld);
    expect(hooks[10]!.data.sources.length).toBe(10);

    // the feed lists every alert, held or not, and no summary
    const after = await t.json("GET", "/api/events", { cookie: a.owner.cookie });
    expect(after.body.total).toBe(raised + 1);
    expect(after.body.events.map((e: { type: string }) => e.type)).not.toContain("alerts.summary");
    // b was never held
    expect(mailsTo(b.address).every((m) => !m.subject.includes("held back"))).toBe(true);
  }, 300_000);

  test("the summary is queued once when two ticks run at the same time", async () => {
    await app();
    const a = await org();
    for (let i = 0; i < 14; i++) await failingReport(a);
    await tick(a);
    expect(mailsTo(a.address).length).toBe(10);
    later(10 * MINUTE + 1000);
    await Promise.all([deliverDue(t.deps), deliverDue(t.deps)]);
    await tick(a);
    expect(mailsTo(a.address).filter((m) => m.subject.includes("held back")).length).toBe(1);
    expect(hooksAt(a.hookPath).filter((h) => h.type === "alerts.summary").length).toBe(1);
  }, 120_000);

  test("the organisation's own limit (Settings) applies; a limit out of bounds is refused and changes nothing", async () => {
    await app();
    const a = await org();
    const shown = await t.json("GET", "/api/alerts/limit", { cookie: a.owner.cookie });
    expect(shown.body).toEqual({ perWindow: 10, windowMinutes: 10, default: 10, min: 1, max: 100 });
    for (const perWindow of [0, 101, 2.5, "3"]) {
      const refused = await t.json("PUT", "/api/alerts/limit", { cookie: a.owner.cookie, body: { perWindow } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.fields.perWindow).toBe("Enter a whole number of alerts from 1 to 100");
    }
    expect((await t.json("GET", "/api/alerts/limit", { cookie: a.owner.cookie })).body.perWindow).toBe(10);
    const saved = await t.json("PUT", "/api/alerts/limit", { cookie: a.owner.cookie, body: { perWindow: 3 } });
    expect(saved.status).toBe(200);
    expect(saved.body.perWindow).toBe(3);
    const audit = await t.json("GET", "/api/audit", { cookie: a.owner.cookie });
    expect(audit.body.entries.some((e: { action: string; data: unknown }) => e.action === "settings.changed" && JSON.stringify(e.data).includes('"alertsPerWindow":3'))).toBe(true);

    for (let i = 0; i < 8; i++) await failingReport(a);
    await tick(a);
    expect(mailsTo(a.address).length).toBe(3);
    expect(hooksAt(a.hookPath).length).toBe(3);
    later(10 * MINUTE + 1000);
    await tick(a);
    const mails = mailsTo(a.address);
    expect(mails.length).toBe(4);
    expect(mails[3]!.text).toContain("at most 3 alerts every 10 minutes");
    // after the summary the window holds it: two more go out one by one, then they are held again
    for (let i = 0; i < 3; i++) await failingReport(a);
    await tick(a);
    expect(mailsTo(a.address).length).toBe(6);
  }, 120_000);
});
