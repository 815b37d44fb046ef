import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { CONTACT_LIMITS, CONTACT_RATE_LIMIT } from "./contract";

let t: TestApp;
afterEach(() => t?.close());

const valid = {
  name: "Dana Whitfield",
  email: "dana@whitfield-law.example",
  company: "Whitfield Law",
  phone: "+1 555 0100",
  requestType: "sales",
  subject: "Pricing for 12 domains",
  message: "We run twelve domains and would like to know which plan fits us best.",
  domains: "whitfield-law.example, whitfield.example",
};

let ipCounter = 0;
/** Each call looks like a different client unless an address is given. */
const post = (body: unknown, ip = `203.0.113.${++ipCounter}`) =>
  t.json("POST", "/api/contact", { body, headers: { "x-forwarded-for": ip } });
const stored = () => t.deps.store.db.select().from(t.deps.store.t.contactSubmissions);

describe("POST /api/contact", () => {
  test("a valid message is stored unread with its timestamp and answered 201 { success, id }", async () => {
    const now = new Date("2025-03-04T05:06:07Z");
    t = await makeTestApp({ config: { trustProxy: true }, deps: { now: () => now } });
    const res = await post(valid);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ success: true, id: expect.any(String) });
    const rows = await stored();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toEqual({ id: res.body.id, ...valid, isRead: false, submittedAt: now });
  });

  test("optional fields may be left out; requestType defaults to support; text is trimmed", async () => {
    t = await makeTestApp({ config: { trustProxy: true } });
    const { phone, domains, requestType, ...required } = valid;
    const res = await post({ ...required, name: "  Dana  ", phone: "", domains: "   " });
    expect(res.status).toBe(201);
    const [row] = await stored();
    expect(row).toMatchObject({ name: "Dana", phone: null, domains: null, requestType: "support", isRead: false });
    expect(row!.submittedAt).toBeInstanceOf(Date);
  });

  test.each([
    ["name", "D", "Name must be at least 2 characters"],
    ["name", undefined, "Name must be at least 2 characters"],
    ["email", "not-an-email", "Please enter a valid email address"],
    ["email", "", "Please enter a valid email address"],
    ["company", "W", "Company name is required"],
    ["company", undefined, "Company name is required"],
    ["subject", "Hi", "Subject must be at least 5 characters"],
    ["message", "Too short to send.", "Message must be at least 20 characters"],
    ["message", 42, "Message must be at least 20 characters"],
    ["requestType", "spam", "Please choose a request type: support, sales, technical, billing, partnership or other"],
  ])("%s = %p → 400 with %p and nothing stored", async (field, value, message) => {
    t = await makeTestApp({ config: { trustProxy: true } });
    const res = await post({ ...valid, [field]: value });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_failed");
    expect(res.body.error.fields[field]).toBe(message);
    expect(await stored()).toHaveLength(0);
  });

  test("every invalid field is reported at once", async () => {
    t = await makeTestApp({ config: { trustProxy: true } });
    const res = await post({ name: "", email: "x", company: "", subject: "", message: "" });
    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual({
      name: "Name must be at least 2 characters",
      email: "Please enter a valid email address",
      company: "Company name is required",
      subject: "Subject must be at least 5 characters",
      message: "Message must be at least 20 characters",
    });
  });

  test.each([
    ["name", "Name must be at most 100 characters"],
    ["company", "Company name must be at most 200 characters"],
    ["phone", "Phone must be at most 50 characters"],
    ["subject", "Subject must be at most 200 characters"],
    ["message", "Message must be at most 5,000 characters"],
    ["domains", "Domains must be at most 1,000 characters"],
  ] as const)("an over-long %s is refused with %p", async (field, message) => {
    t = await makeTestApp({ config: { trustProxy: true } });
    const res = await post({ ...valid, [field]: "x".repeat(CONTACT_LIMITS[field] + 1) });
    expect(res.status).toBe(400);
    expect(res.body.error.fields[field]).toBe(message);
    expect(await stored()).toHaveLength(0);
  });

  test("an over-long email is refused; one at the limit is accepted", async () => {
    t = await makeTestApp({ config: { trustProxy: true } });
    const long = `${"a".repeat(64)}@${"b".repeat(CONTACT_LIMITS.email - 64 - 1 - 8)}.example`;
    expect(long.length).toBe(CONTACT_LIMITS.email);
    expect((await post({ ...valid, email: long })).status).toBe(201);
    const res = await post({ ...valid, email: "a" + long });
    expect(res.status).toBe(400);
    expect(res.body.error.fields.email).toBe("Email must be at most 254 characters");
    expect(await stored()).toHaveLength(1);
  });

  test("a body far larger than any contact message is refused with 413 before parsing", async () => {
    t = await makeTestApp({ config: { trustProxy: true } });
    const body = JSON.stringify({ ...valid, message: "x".repeat(70 * 1024) });
    // A real client sends Content-Length; a Request built in memory has none unless given.
    const res = await t.json("POST", "/api/contact", { body, headers: { "content-type": "application/json", "content-length": String(body.length) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("payload_too_large");
    expect(await stored()).toHaveLength(0);
  });

  test("a body that is not JSON is refused with 400", async () => {
    t = await makeTestApp({ config: { trustProxy: true } });
    const res = await t.json("POST", "/api/contact", { body: "name=Dana", headers: { "content-type": "text/plain" } });
    expect(res.status).toBe(400);
    expect(await stored()).toHaveLength(0);
  });

  test(`past ${CONTACT_RATE_LIMIT.limit} messages in 10 minutes one address gets 429 and nothing more is stored; others are unaffected`, async () => {
    t = await makeTestApp({ config: { trustProxy: true } });
    for (let i = 0; i < CONTACT_RATE_LIMIT.limit; i++) expect((await post(valid, "198.51.100.7")).status).toBe(201);
    const refused = await post(valid, "198.51.100.7");
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(refused.body.error.message).toContain("Please wait a few minutes");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await stored()).toHaveLength(CONTACT_RATE_LIMIT.limit);
    expect((await post(valid, "198.51.100.8")).status).toBe(201);
    expect(await stored()).toHaveLength(CONTACT_RATE_LIMIT.limit + 1);
  });

  test("the limit's window ends: the same address may send again once it has passed", async () => {
    let now = new Date("2025-03-04T05:00:00Z");
    t = await makeTestApp({ config: { trustProxy: true }, deps: { now: () => now } });
    for (let i = 0; i < CONTACT_RATE_LIMIT.limit; i++) expect((await post(valid, "198.51.100.9")).status).toBe(201);
    expect((await post(valid, "198.51.100.9")).status).toBe(429);
    now = new Date(now.getTime() + CONTACT_RATE_LIMIT.windowSeconds * 1000);
    expect((await post(valid, "198.51.100.9")).status).toBe(201);
  });

  test("two app nodes on one database share the limit: adding a node does not double it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dw-contact-"));
    const dbPath = join(dir, "dw.db");
    const nodeA = await makeTestApp({ dbPath, config: { trustProxy: true } });
    const nodeB = await makeTestApp({ dbPath, config: { trustProxy: true } });
    try {
      const send = (node: TestApp) => node.json("POST", "/api/contact", { body: valid, headers: { "x-forwarded-for": "198.51.100.20" } });
      // alternate nodes, as a load balancer would
      for (let i = 0; i < CONTACT_RATE_LIMIT.limit; i++) expect((await send(i % 2 ? nodeB : nodeA)).status).toBe(201);
      expect((await send(nodeA)).status).toBe(429);
      expect((await send(nodeB)).status).toBe(429);
      const rows = await nodeB.deps.store.db.select().from(nodeB.deps.store.t.contactSubmissions);
      expect(rows).toHaveLength(CONTACT_RATE_LIMIT.limit);
    } finally {
      nodeA.close();
      nodeB.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
