import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { billingAccounts, domains, organizations, type Role } from "../../src/db/schema";
import type { DB } from "../../src/db";
import { assertCanAddDomain, assertCanAddMember, limitMessage } from "../../src/features/billing/limits";
import type { TestApp } from "../support/app";
import { addMember, createOrg, createUser, signedInMember, signIn } from "../support/fixtures";
import { startStripeServer, type StripeStandIn } from "../support/stripe-server";
import { billingApp } from "./billing-helpers";

let stripe: StripeStandIn;
beforeAll(() => {
  stripe = startStripeServer();
});
afterAll(() => stripe.close());

async function setPlan(db: DB, orgId: string, plan: string, planStatus = "active", trialEndsAt: Date | null = null) {
  await db.update(organizations).set({ plan, planStatus, trialEndsAt }).where(eq(organizations.id, orgId));
}
async function fillDomains(db: DB, orgId: string, n: number) {
  await db.insert(domains).values(Array.from({ length: n }, (_, i) => ({ orgId, name: `d${i}-${crypto.randomUUID().slice(0, 6)}.example` })));
}

describe("limit messages name the limit and the plan that lifts it", () => {
  test.each([
    ["essentials", "domains", "Your Essentials plan includes up to 10 domains. Upgrade to Growth for up to 50."],
    ["growth", "domains", "Your Growth plan includes up to 50 domains. Upgrade to Scale / Enterprise for unlimited domains."],
    ["essentials", "team members", "Your Essentials plan includes up to 5 team members. Upgrade to Growth for up to 25."],
    ["growth", "team members", "Your Growth plan includes up to 25 team members. Upgrade to Scale / Enterprise for unlimited team members."],
  ] as const)("%s / %s", (plan, resource, message) => {
    expect(limitMessage(plan, resource)).toBe(message);
  });
});

describe("domain limit, through POST /api/domains", () => {
  test("Essentials allows 10 domains; the 11th answers 403 with the upgrade message", async () => {
    const t = await billingApp(null);
    const db = t.deps.store.db;
    const admin = await signedInMember(t.deps.store, "admin");
    await setPlan(db, admin.orgId, "essentials", "none");
    await fillDomains(db, admin.orgId, 9);
    const tenth = await t.json("POST", "/api/domains", { cookie: admin.cookie, body: { name: "tenth.example" } });
    expect(tenth.status).toBe(201);
    const eleventh = await t.json("POST", "/api/domains", { cookie: admin.cookie, body: { name: "eleventh.example" } });
    expect(eleventh.status).toBe(403);
    expect(eleventh.body.error).toEqual({ code: "plan_limit_reached", message: "Your Essentials plan includes up to 10 domains. Upgrade to Growth for up to 50." });
    t.close();
  });

  test("Scale has no domain limit; --no-plan-limits lifts every limit", async () => {
    const scale = await billingApp(null);
    const a = await signedInMember(scale.deps.store, "owner");
    await setPlan(scale.deps.store.db, a.orgId, "scale", "none");
    await fillDomains(scale.deps.store.db, a.orgId, 120);
    expect((await scale.json("POST", "/api/domains", { cookie: a.cookie, body: { name: "more.example" } })).status).toBe(201);
    scale.close();

    const unlimited = await billingApp(null, { config: { planLimits: false } });
    const b = await signedInMember(unlimited.deps.store, "owner");
    await setPlan(unlimited.deps.store.db, b.orgId, "essentials", "none");
    await fillDomains(unlimited.deps.store.db, b.orgId, 10);
    expect((await unlimited.json("POST", "/api/domains", { cookie: b.cookie, body: { name: "more.example" } })).status).toBe(201);
    expect((await unlimited.json("GET", "/api/billing/status", { cookie: b.cookie })).body.limits).toEqual({ domains: null, members: null, enforced: false });
    unlimited.close();
  });

  test("an MSP's client organizations share the MSP's plan: their domains count together", async () => {
    const t = await billingApp(null);
    const db = t.deps.store.db;
    const msp = await signedInMember(t.deps.store, "owner");
    await setPlan(db, msp.orgId, "essentials", "none");
    const client = await createOrg(t.deps.store, "Client", msp.orgId);
    await fillDomains(db, msp.orgId, 6);
    await fillDomains(db, client, 4);
    await expect(assertCanAddDomain(t.deps, client)).rejects.toThrow("Your Essentials plan includes up to 10 domains");
    t.close();
  });
});

describe("member limit, through POST /api/members/invitations", () => {
  test("Essentials allows 5 team members, pending invitations included", async () => {
    const t = await billingApp(null);
    const db = t.deps.store.db;
    const owner = await signedInMember(t.deps.store, "owner");
    await setPlan(db, owner.orgId, "essentials", "none");
    for (let i = 0; i < 3; i++) await addMember(t.deps.store, owner.orgId, await createUser(t.deps.store), "member");
    // 4 members: one invitation fits, the next does not
    expect((await t.json("POST", "/api/members/invitations", { cookie: owner.cookie, body: { email: "fifth@example.test", role: "member" } })).status).toBe(201);
    const sixth = await t.json("POST", "/api/members/invitations", { cookie: owner.cookie, body: { email: "sixth@example.test", role: "member" } });
    expect(sixth.status).toBe(403);
    expect(sixth.body.error.message).toBe("Your Essentials plan includes up to 5 team members. Upgrade to Growth for up to 25.");
    t.close();
  });

  test("accepting an invitation that was within the limit still works", async () => {
    const t = await billingApp(null);
    const db = t.deps.store.db;
    const owner = await signedInMember(t.deps.store, "owner");
    await setPlan(db, owner.orgId, "essentials", "none");
    for (let i = 0; i < 4; i++) await addMember(t.deps.store, owner.orgId, await createUser(t.deps.store), "member");
    await expect(assertCanAddMember(t.deps, owner.orgId)).rejects.toThrow("5 team members");
    await assertCanAddMember(t.deps, owner.orgId, { acceptingInvitation: true });
    t.close();
  });
});

describe("read-only state (billing on)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await billingApp(stripe.url);
  });
  afterAll(() => t.close());

  /** An organisation in `state` with a member of each role, and a domain. */
  async function orgIn(state: "canceled" | "trial_ended" | "trial_ended_with_card" | "past_due" | "trialing") {
    const db = t.deps.store.db;
    const owner = await signedInMember(t.deps.store, "owner");
    const past = new Date(Date.now() - 86400_000);
    const future = new Date(Date.now() + 3 * 86400_000);
    if (state === "canceled") await setPlan(db, owner.orgId, "growth", "canceled");
    if (state === "past_due") await setPlan(db, owner.orgId, "growth", "past_due");
    if (state === "trialing") await setPlan(db, owner.orgId, "growth", "trialing", future);
    if (state.startsWith("trial_ended")) await setPlan(db, owner.orgId, "growth", "trialing", past);
    await db
      .insert(billingAccounts)
      .values({ orgId: owner.orgId, stripeCustomerId: `cus_${owner.orgId}`, stripeSubscriptionId: state === "trial_ended" ? null : `sub_${owner.orgId}` });
    await fillDomains(db, owner.orgId, 1);
    const cookies: Record<Role, string> = { owner: owner.cookie } as Record<Role, string>;
    for (const role of ["admin", "member", "viewer"] as const) {
      const userId = await createUser(t.deps.store);
      await addMember(t.deps.store, owner.orgId, userId, role);
      cookies[role] = await signIn(t.deps.store, userId, owner.orgId);
    }
    return { orgId: owner.orgId, cookies };
  }

  for (const state of ["canceled", "trial_ended"] as const) {
    describe(state, () => {
      for (const role of ["owner", "admin", "member", "viewer"] as const) {
        test(`${role}: reads work; writes their role allows answer 402; the data stays`, async () => {
          const { orgId, cookies } = await orgIn(state);
          const list = await t.json("GET", "/api/domains", { cookie: cookies[role] });
          expect(list.status).toBe(200);
          expect(list.body).toHaveLength(1);
          const status = await t.json("GET", "/api/billing/status", { cookie: cookies[role] });
          expect(status.body.readOnly).toBe(true);

          const add = await t.json("POST", "/api/domains", { cookie: cookies[role], body: { name: "new.example" } });
          // a role without the permission is still told 403 first; the others get the 402
          expect(add.status).toBe(role === "owner" || role === "admin" ? 402 : 403);
          if (add.status === 402) {
            expect(add.body.error.code).toBe("payment_required");
            expect(add.body.error.message).toContain(state === "canceled" ? "subscription was canceled" : "trial ended without a payment card");
            expect(add.body.error.message).toContain("data is kept");
          }
          expect((await t.deps.store.db.select().from(domains).where(eq(domains.orgId, orgId)))).toHaveLength(1);
        });
      }
    });
  }

  for (const state of ["trialing", "past_due", "trial_ended_with_card"] as const) {
    test(`${state}: writes still work`, async () => {
      const { cookies } = await orgIn(state);
      expect((await t.json("POST", "/api/domains", { cookie: cookies.admin, body: { name: "new.example" } })).status).toBe(201);
    });
  }

  test("with billing off, a canceled organization is not read-only (nobody could pay)", async () => {
    const off = await billingApp(null);
    const owner = await signedInMember(off.deps.store, "owner");
    await setPlan(off.deps.store.db, owner.orgId, "growth", "canceled");
    expect((await off.json("POST", "/api/domains", { cookie: owner.cookie, body: { name: "new.example" } })).status).toBe(201);
    off.close();
  });
});
