/**
 * Bulk onboarding (POST /api/portfolio/import): clients and their domains from a CSV, a dry run
 * that changes nothing, one result per row, the plan's domain limit, the audit log and the first
 * DNS check of each added domain queued (deps.onDomainAdded), never run inside the request.
 *
 * Rows are independent: each row is its own transaction, so a refused row leaves the database as
 * it was for that row and the other rows stand.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { auditLog, domains, organizations } from "../../src/db/schema";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, signIn, type SignedIn } from "../support/fixtures";
import { startStripeServer, type StripeStandIn } from "../support/stripe-server";
import { billingApp } from "./billing-helpers";
import { billingAccounts } from "../../src/db/schema";

let t: TestApp;
let msp: SignedIn;
let queued: string[];

beforeEach(async () => {
  queued = [];
  t = await makeTestApp({ deps: { onDomainAdded: (id) => queued.push(id) } });
  msp = await signedInMember(t.deps.store, "owner", "Northwind IT");
  await setPlan("scale");
});
afterEach(() => t.close());

const setPlan = (plan: string) => t.deps.store.db.update(organizations).set({ plan, planStatus: "active" }).where(eq(organizations.id, msp.orgId));
const importCsv = (csv: string, dryRun: boolean, cookie = msp.cookie) => t.json("POST", "/api/portfolio/import", { cookie, body: { csv, dryRun } });
const clientsOfMsp = () => t.deps.store.db.select().from(organizations).where(eq(organizations.parentId, msp.orgId));
async function domainCount(): Promise<number> {
  const ids = (await clientsOfMsp()).map((c) => c.id);
  return ids.length ? (await t.deps.store.db.select().from(domains).where(inArray(domains.orgId, ids))).length : 0;
}

/** 50 clients × 3 domains, with a header, and two bad rows (lines 41 and 120 of the file). */
function bigCsv(): { csv: string; bad: number[] } {
  const lines = ["client name,domain"];
  for (let c = 1; c <= 50; c++) for (let d = 1; d <= 3; d++) lines.push(`Client ${String(c).padStart(2, "0")},c${c}-d${d}.example`);
  lines.splice(40, 0, "Broken Row Co,not a domain");
  lines.splice(119, 0, "X,short-name.example");
  return { csv: lines.join("\n") + "\n", bad: [41, 120] };
}

describe("POST /api/portfolio/import", () => {
  test("50 clients × 3 domains with 2 bad rows: a dry run changes nothing, the import reports exactly those rows", async () => {
    const { csv, bad } = bigCsv();
    const preview = await importCsv(csv, true);
    expect(preview.status).toBe(200);
    expect(preview.body.dryRun).toBe(true);
    expect(preview.body.rows).toHaveLength(152);
    expect(preview.body.rows.filter((r: any) => r.status === "error").map((r: any) => r.line)).toEqual(bad);
    expect(preview.body.summary).toEqual({ created: 150, exists: 0, errors: 2, clientsCreated: 50 });
    expect(await clientsOfMsp()).toHaveLength(0);
    expect(queued).toHaveLength(0);

    const done = await importCsv(csv, false);
    expect(done.status).toBe(200);
    const errors = done.body.rows.filter((r: any) => r.status === "error");
    expect(errors.map((r: any) => r.line)).toEqual(bad);
    expect(errors[0]).toMatchObject({ clientName: "Broken Row Co", domain: "not a domain", error: "Please enter a valid domain name (e.g., example.com)" });
    expect(errors[1]).toMatchObject({ clientName: "X", error: "Organization name must be at least 2 characters" });
    expect(done.body.summary).toEqual({ created: 150, exists: 0, errors: 2, clientsCreated: 50 });
    expect(done.body.rows.filter((r: any) => r.clientCreated)).toHaveLength(50);
    expect(await clientsOfMsp()).toHaveLength(50);
    expect(await domainCount()).toBe(150);
    // each added domain's first DNS check is queued, none run inline
    expect(queued).toHaveLength(150);
    const added = await t.deps.store.db.select().from(domains).where(inArray(domains.id, queued));
    expect(added.every((d) => d.overallStatus === "pending" && d.lastCheckedAt === null)).toBe(true);

    // the same CSV again: everything exists, nothing is added
    const again = await importCsv(csv, false);
    expect(again.body.summary).toEqual({ created: 0, exists: 150, errors: 2, clientsCreated: 0 });
    expect(await clientsOfMsp()).toHaveLength(50);
    expect(await domainCount()).toBe(150);

    // the portfolio lists them
    const portfolio = await t.json("GET", "/api/portfolio", { cookie: msp.cookie });
    expect(portfolio.body.clients).toHaveLength(50);
    expect(portfolio.body.clients.every((c: any) => c.domains === 3)).toBe(true);
  }, 120_000);

  test("existing clients are matched by name (any case); quoted names may hold commas", async () => {
    await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Acme Dental" } });
    const csv = ['"Baker, Lane & Co", baker.example', "ACME DENTAL, acme.example", "acme dental, acme.example", "", "Acme Dental, acme2.example"].join("\r\n");
    const res = await importCsv(csv, false);
    expect(res.body.rows).toEqual([
      { line: 1, clientName: "Baker, Lane & Co", domain: "baker.example", status: "created", clientCreated: true },
      { line: 2, clientName: "Acme Dental", domain: "acme.example", status: "created", clientCreated: false },
      { line: 3, clientName: "Acme Dental", domain: "acme.example", status: "exists", clientCreated: false },
      { line: 5, clientName: "Acme Dental", domain: "acme2.example", status: "created", clientCreated: false },
    ]);
    expect((await clientsOfMsp()).map((c) => c.name).sort()).toEqual(["Acme Dental", "Baker, Lane & Co"]);
  });

  test("the plan's domain limit: rows past it are refused and leave nothing behind, in the preview and the import", async () => {
    await setPlan("essentials"); // 10 domains, the MSP's own and its clients' together
    const lines = Array.from({ length: 12 }, (_, i) => `Client ${i < 6 ? "A" : "B"}${i >= 10 ? " New" : ""},d${i + 1}.example`);
    const csv = lines.join("\n");
    const limit = "Your Essentials plan includes up to 10 domains. Upgrade to Growth for up to 50.";
    const preview = await importCsv(csv, true);
    expect(preview.body.rows.filter((r: any) => r.status === "error").map((r: any) => [r.line, r.error])).toEqual([[11, limit], [12, limit]]);
    const done = await importCsv(csv, false);
    expect(done.body.rows.map((r: any) => r.status)).toEqual(preview.body.rows.map((r: any) => r.status));
    expect(done.body.rows.filter((r: any) => r.status === "error").map((r: any) => [r.line, r.error])).toEqual([[11, limit], [12, limit]]);
    // the refused rows' new client ("Client B New") was not created either
    expect((await clientsOfMsp()).map((c) => c.name).sort()).toEqual(["Client A", "Client B"]);
    expect(await domainCount()).toBe(10);
    expect(queued).toHaveLength(10);
  });

  test("bounded input, one clear error per bad row", async () => {
    const tooMany = Array.from({ length: 1001 }, (_, i) => `Client ${i},d${i}.example`).join("\n");
    const refused = await importCsv(tooMany, false);
    expect(refused.status).toBe(413);
    expect(refused.body.error.message).toContain("at most 1000");
    expect(await clientsOfMsp()).toHaveLength(0);
    const tooBig = await importCsv("a".repeat(200_001), true);
    expect(tooBig.status).toBe(400);
    expect((await importCsv(" \n \n", true)).status).toBe(400);
    const res = await importCsv("Only one column\nA Co, a.example, extra\nGood Co, good.example", false);
    expect(res.body.rows.map((r: any) => [r.line, r.status, r.error ?? null])).toEqual([
      [1, "error", "Expected 2 columns (client name, domain), found 1."],
      [2, "error", "Expected 2 columns (client name, domain), found 3."],
      [3, "created", null],
    ]);
  });

  test("created clients and domains are in the audit log, with who imported them", async () => {
    await importCsv("Acme Dental, acme.example\nAcme Dental, acme-two.example", false);
    const [client] = await clientsOfMsp();
    const parentLog = await t.deps.store.db.select().from(auditLog).where(eq(auditLog.orgId, msp.orgId));
    expect(parentLog.map((r) => [r.action, r.target, r.actorId])).toEqual([["client.created", "Acme Dental", msp.userId]]);
    const clientLog = await t.deps.store.db.select().from(auditLog).where(eq(auditLog.orgId, client!.id));
    expect(clientLog.map((r) => [r.action, r.target]).sort()).toEqual([["domain.added", "acme-two.example"], ["domain.added", "acme.example"]]);
    // the MSP's admin reads the parent's record through the audit API
    const api = await t.json("GET", "/api/audit?action=client.created", { cookie: msp.cookie });
    expect(api.status).toBe(200);
    expect(api.body.entries.map((e: any) => e.target)).toEqual(["Acme Dental"]);
  });

  test("a member of the managing organization, and anyone inside a client, may not import", async () => {
    const member = await signedInMember(t.deps.store, "member");
    expect((await importCsv("A Co, a.example", false, member.cookie)).status).toBe(403);
    await importCsv("Acme Dental, acme.example", false);
    const [client] = await clientsOfMsp();
    const inClient = await signIn(t.deps.store, msp.userId, client!.id);
    const res = await importCsv("Nested Co, nested.example", false, inClient);
    expect(res.status).toBe(403);
    expect(await t.deps.store.db.select().from(organizations).where(eq(organizations.parentId, client!.id))).toHaveLength(0);
  });
});

describe("a read-only managing organization (billing on, subscription canceled)", () => {
  let stripe: StripeStandIn;
  beforeAll(() => {
    stripe = startStripeServer();
  });
  afterAll(() => stripe.close());

  test("still reads its portfolio, but imports nothing (402)", async () => {
    const billing = await billingApp(stripe.url);
    try {
      const owner = await signedInMember(billing.deps.store, "owner", "Lapsed MSP");
      await billing.json("POST", "/api/orgs/clients", { cookie: owner.cookie, body: { name: "Kept Client" } });
      await billing.deps.store.db.update(organizations).set({ plan: "growth", planStatus: "canceled" }).where(eq(organizations.id, owner.orgId));
      await billing.deps.store.db.insert(billingAccounts).values({ orgId: owner.orgId, stripeCustomerId: `cus_${owner.orgId}`, stripeSubscriptionId: `sub_${owner.orgId}` });
      const read = await billing.json("GET", "/api/portfolio", { cookie: owner.cookie });
      expect(read.status).toBe(200);
      expect(read.body.clients.map((c: any) => c.name)).toEqual(["Kept Client"]);
      const refused = await billing.json("POST", "/api/portfolio/import", { cookie: owner.cookie, body: { csv: "New Co, new.example", dryRun: false } });
      expect(refused.status).toBe(402);
      expect((await billing.deps.store.db.select().from(organizations).where(eq(organizations.parentId, owner.orgId))).map((o) => o.name)).toEqual(["Kept Client"]);
    } finally {
      await billing.close();
    }
  });
});
