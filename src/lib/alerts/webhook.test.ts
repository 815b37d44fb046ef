import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { nextAttemptAt, newWebhookSecret, shouldRetryDelivery, signWebhook, verifyWebhookSignature, WEBHOOK_MAX_ATTEMPTS, webhookPayload } from "./webhook";

const secret = "whsec_test";
const body = JSON.stringify({ id: "evt_1", type: "dns.record_changed", data: { a: "é" } });
const t = 1_780_000_000;

describe("webhook signature", () => {
  test("t=<unix seconds>,v1=<hex HMAC-SHA256 of '<t>.<raw body>'>, as a receiver computes it", () => {
    const header = signWebhook(secret, body, t);
    const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
    expect(header).toBe(`t=${t},v1=${expected}`);
    expect(signWebhook(secret, body, new Date(t * 1000 + 999))).toBe(header);
    expect(signWebhook(secret, new TextEncoder().encode(body), t)).toBe(header);
  });

  test("verifies the body as sent, within five minutes", () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhookSignature(secret, header, body, t + 299)).toBe(true);
    expect(verifyWebhookSignature(secret, header, body, new Date((t - 10) * 1000))).toBe(true);
  });

  test("refuses a changed body, another secret, an old timestamp, a missing or garbled header", () => {
    const header = signWebhook(secret, body, t);
    expect(verifyWebhookSignature(secret, header, body + " ", t)).toBe(false);
    expect(verifyWebhookSignature("whsec_other", header, body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, t + 301)).toBe(false);
    expect(verifyWebhookSignature(secret, header, body, t + 3600, 7200)).toBe(true);
    expect(verifyWebhookSignature(secret, null, body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, `t=${t}`, body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, header.replace(/v1=../, "v1=zz"), body, t)).toBe(false);
    expect(verifyWebhookSignature(secret, header.replace(`t=${t}`, `t=${t + 1}`), body, t)).toBe(false);
  });

  test("accepts any of several v1 entries (secret rotation)", () => {
    const other = signWebhook("whsec_old", body, t).split(",")[1];
    expect(verifyWebhookSignature(secret, `${signWebhook(secret, body, t)},${other}`, body, t)).toBe(true);
    expect(verifyWebhookSignature("whsec_old", `${signWebhook(secret, body, t)},${other}`, body, t)).toBe(true);
  });

  test("secrets are random and prefixed", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });
});

describe("webhook payload", () => {
  test("{ id, type, occurredAt, organization: { id, name }, domain?, data }", () => {
    const occurredAt = new Date("2026-05-01T10:00:00Z");
    const organization = { id: "org_1", name: "Acme", plan: "scale" } as { id: string; name: string };
    expect(webhookPayload({ id: "evt_1", type: "dns.record_changed", occurredAt, organization, domain: "example.com", data: { before: "a", after: "b" } })).toEqual({
      id: "evt_1",
      type: "dns.record_changed",
      occurredAt: "2026-05-01T10:00:00.000Z",
      organization: { id: "org_1", name: "Acme" },
      domain: "example.com",
      data: { before: "a", after: "b" },
    });
    expect("domain" in webhookPayload({ id: "evt_2", type: "account.member_joined", occurredAt, organization, domain: null, data: {} })).toBe(false);
  });
});

describe("retries", () => {
  test("5 tries over about an hour, each gap longer than the one before", () => {
    const first = new Date("2026-05-01T10:00:00Z");
    const times = [first];
    for (let attempt = 1; attempt <= 10; attempt++) {
      const next = nextAttemptAt(attempt, first);
      if (!next) break;
      times.push(next);
    }
    expect(times).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
    expect(WEBHOOK_MAX_ATTEMPTS).toBe(5);
    const gaps = times.slice(1).map((time, i) => time.getTime() - times[i]!.getTime());
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]!).toBeGreaterThan(gaps[i - 1]!);
    const span = (times.at(-1)!.getTime() - first.getTime()) / 60_000;
    expect(span).toBeGreaterThanOrEqual(45);
    expect(span).toBeLessThanOrEqual(90);
    expect(nextAttemptAt(5, first)).toBeNull();
    expect(() => nextAttemptAt(0, first)).toThrow();
  });

  test("network errors, rate limits and server errors are retried; success and a removed hook are not", () => {
    expect([null, 408, 429, 500, 503].map(shouldRetryDelivery)).toEqual([true, true, true, true, true]);
    expect([200, 204, 400, 404, 410].map(shouldRetryDelivery)).toEqual([false, false, false, false, false]);
  });
});
