/**
 * The outbox survives a crash: the built executable records an alert (a DNS change found by
 * "Check now") with delivery off, is killed with SIGKILL before any delivery tick, and after a
 * restart with delivery on the local webhook receiver gets the alert exactly once, signed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyWebhookSignature, WEBHOOK_SIGNATURE_HEADER } from "../../src/lib/alerts/webhook";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { startServer, type RunningServer } from "../support/server";

let dns: TestDnsServer;
const hits: { headers: Headers; body: string }[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    hits.push({ headers: request.headers, body: await request.text() });
    return new Response("ok");
  },
});
const dir = mkdtempSync(join(tmpdir(), "dw-alerts-"));
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
});
afterAll(async () => {
  await dns?.close();
  receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const args = (interval: number) => ["--dns-server", dns.address, "--dns-check-interval", "0", "--allow-private-webhook-hosts", "--alert-delivery-interval", String(interval)];

async function api(server: RunningServer, cookie: string, method: string, path: string, body?: unknown) {
  const res = await fetch(server.url + path, { method, headers: { cookie, origin: server.url, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json()) as any };
}

/** Waits for `condition`, polling; fails with `what` if it never holds (a generous bound, not a timing assertion). */
async function until(what: string, condition: () => boolean | Promise<boolean>) {
  for (let i = 0; i < 400; i++) {
    if (await condition()) return;
    await Bun.sleep(50);
  }
  throw new Error(`never happened: ${what}`);
}

describe("alert delivery across a crash", () => {
  test("queued before SIGKILL, delivered once after the restart", async () => {
    const first = await startServer({ dir, args: args(0) });
    const signup = await fetch(first.url + "/api/auth/signup", {
      method: "POST",
      headers: { "content-type": "application/json", origin: first.url },
      body: JSON.stringify({ name: "Kim Crash", email: `kim-${Date.now()}@e2e.example`, password: "e2e owner password 1", organization: "Crash Test Co" }),
    });
    expect(signup.status).toBe(201);
    const cookie = signup.headers.getSetCookie()[0]!.split(";")[0]!;
    const hook = await api(first, cookie, "POST", "/api/alerts/channels", { type: "webhook", name: "Receiver", target: `http://127.0.0.1:${receiver.port}/hook` });
    expect(hook.status).toBe(201);
    // no DNS cache, so "Check now" sees the change at once
    const { updatedAt: _u, canEdit: _c, ...settings } = (await api(first, cookie, "GET", "/api/settings")).body;
    expect((await api(first, cookie, "PUT", "/api/settings", { ...settings, dnsCaching: false })).status).toBe(200);
    const domain = await api(first, cookie, "POST", "/api/domains", { name: "good.test" });
    expect(domain.status).toBe(201);
    // the first check (started when the domain was added) stores the snapshot to compare with
    await until("the first check", async () => (await api(first, cookie, "GET", "/api/domains")).body[0]?.lastCheckedAt !== null);

    dns.zone["mx1.good.test"] = { A: ["192.0.2.25"] };
    dns.zone["good.test"]!.MX = [{ exchange: "mx2.good.test", priority: 10 }];
    const check = await api(first, cookie, "POST", `/api/domains/${domain.body.id}/check`);
    expect(check.status).toBe(200);
    expect(check.body.events.map((e: any) => e.type)).toEqual(["dns.record_changed"]);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    expect(hits.length).toBe(0);

    const second = await startServer({ dir, args: args(1) });
    try {
      await until("the webhook delivery", () => hits.length >= 1);
      await until("the delivery settled", async () => (await api(second, cookie, "GET", `/api/alerts/channels/${hook.body.id}/deliveries`)).body.deliveries[0]?.status === "delivered");
      const log = (await api(second, cookie, "GET", `/api/alerts/channels/${hook.body.id}/deliveries`)).body.deliveries;
      expect(log.length).toBe(1);
      expect(log[0]).toMatchObject({ status: "delivered", attempts: 1 });
      // later ticks send nothing more
      await Bun.sleep(2_500);
      expect(hits.length).toBe(1);
      const payload = JSON.parse(hits[0]!.body);
      expect(payload).toMatchObject({ type: "dns.record_changed", domain: "good.test", organization: { name: "Crash Test Co" }, data: { record: "mx" } });
      expect(verifyWebhookSignature(hook.body.secret, hits[0]!.headers.get(WEBHOOK_SIGNATURE_HEADER), hits[0]!.body, new Date())).toBe(true);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
