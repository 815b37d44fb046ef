// Plan limits and the read-only state, enforced on the server. Other features call these
// before a write; each throws a ServiceError (403 naming the limit and the plan that lifts it,
// or 402 when the organisation is read-only). Data is never deleted by billing.
import { eq } from "drizzle-orm";
import { PaymentRequiredError, ServiceError } from "../../http/errors";
import type { ServiceContext } from "../../http/access";
import { isPlanKey, PLAN_KEYS, PLANS, type Plan, type PlanKey } from "../../lib/plans";
import { countDomains } from "../domains/service";
import { clientsOf, organizationInfo, type OrganizationInfo } from "../orgs/audience";
import { countMembersAndInvitations } from "../orgs/members";
import { billingSettings } from "./settings";

export class PlanLimitError extends ServiceError {
  constructor(message: string) {
    super(403, "plan_limit_reached", message);
  }
}

/** What the limit checks need: the store, the configuration, whether billing is on, the clock. */
export type LimitsContext = Pick<ServiceContext, "store" | "config" | "stripe" | "now">;

export interface EnforcementSettings {
  /** domain and member limits of the plan (`--no-plan-limits` turns them off) */
  planLimits: boolean;
  /** read-only state for canceled or unpaid-trial organisations; only while customers can pay */
  readOnly: boolean;
}

/** From the configuration: plan limits unless --no-plan-limits; the read-only state only with billing on. */
export function enforcementSettings(ctx: Pick<ServiceContext, "config" | "stripe">): EnforcementSettings {
  const planLimits = billingSettings(ctx.config).planLimits;
  return { planLimits, readOnly: planLimits && !!ctx.stripe };
}

/** The organisation whose plan applies: an MSP's client organisation is covered by its MSP's plan. */
export async function billingOrg(ctx: Pick<ServiceContext, "store">, orgId: string): Promise<OrganizationInfo | null> {
  const org = await organizationInfo(ctx, orgId);
  if (!org?.parentId) return org;
  return (await organizationInfo(ctx, org.parentId)) ?? org;
}

/** The billing organisation and every client organisation it manages. */
async function coveredOrgIds(ctx: Pick<ServiceContext, "store">, rootId: string): Promise<string[]> {
  const children = await clientsOf(ctx, rootId);
  return [rootId, ...children.map((c) => c.id)];
}

export function planOf(key: string): Plan {
  return PLANS[isPlanKey(key) ? key : "growth"];
}

/** The next plan up that allows more than `current` of a resource, or null when none does. */
function upgradeFor(plan: PlanKey, limitOf: (p: Plan) => number | null): Plan | null {
  const current = limitOf(PLANS[plan]);
  for (const key of PLAN_KEYS.slice(PLAN_KEYS.indexOf(plan) + 1)) {
    const next = limitOf(PLANS[key]);
    if (next === null || (current !== null && next > current)) return PLANS[key];
  }
  return null;
}

/** e.g. "Your Essentials plan includes up to 10 domains. Upgrade to Growth for up to 50." */
export function limitMessage(plan: PlanKey, resource: "domains" | "team members"): string {
  const limitOf = (p: Plan) => (resource === "domains" ? p.maxDomains : p.maxMembers);
  const limit = limitOf(PLANS[plan]);
  const next = upgradeFor(plan, limitOf);
  const head = `Your ${PLANS[plan].name} plan includes up to ${limit} ${resource}.`;
  if (!next) return `${head} Contact us to raise the limit.`;
  const nextLimit = limitOf(next);
  return `${head} Upgrade to ${next.name} for ${nextLimit === null ? `unlimited ${resource}` : `up to ${nextLimit}`}.`;
}

export type ReadOnlyReason = "canceled" | "trial_ended" | null;

/**
 * Why an organisation is read-only, or null: its subscription is canceled, or its trial ended
 * without a card (no subscription was ever created).
 */
export async function readOnlyReason(ctx: LimitsContext, orgId: string): Promise<ReadOnlyReason> {
  if (!enforcementSettings(ctx).readOnly) return null;
  const org = await billingOrg(ctx, orgId);
  if (!org) return null;
  if (org.planStatus === "canceled") return "canceled";
  if (org.planStatus === "trialing" && org.trialEndsAt && org.trialEndsAt.getTime() <= ctx.now().getTime()) {
    const { store } = ctx;
    const [account] = await store.db
      .select({ subscription: store.t.billingAccounts.stripeSubscriptionId })
      .from(store.t.billingAccounts)
      .where(eq(store.t.billingAccounts.orgId, org.id))
      .limit(1);
    if (!account?.subscription) return "trial_ended";
  }
  return null;
}

export const READ_ONLY_MESSAGES: Record<Exclude<ReadOnlyReason, null>, string> = {
  canceled:
    "This organization is read-only because its subscription was canceled. Your data is kept: the owner can restart the subscription to make changes again.",
  trial_ended:
    "This organization is read-only because its free trial ended without a payment card. Your data is kept: the owner can add a card to make changes again.",
};

/** 402 when the organisation is read-only; reads never call this. */
export async function assertWritable(ctx: LimitsContext, orgId: string): Promise<void> {
  const reason = await readOnlyReason(ctx, orgId);
  if (reason) throw new PaymentRequiredError(READ_ONLY_MESSAGES[reason]);
}

export interface Usage {
  domains: number;
  /** members plus pending (unexpired, unaccepted) invitations */
  members: number;
}

/** What the organisation's plan covers (its MSP's, for a client organisation) uses now. */
export async function usageOf(ctx: LimitsContext, orgId: string): Promise<Usage> {
  const root = await billingOrg(ctx, orgId);
  const ids = await coveredOrgIds(ctx, root?.id ?? orgId);
  return { domains: await countDomains(ctx, ids), members: await countMembersAndInvitations(ctx, ids) };
}

/** The plan that applies to the organisation when its limits are enforced, else null. */
async function enforcedPlan(ctx: LimitsContext, orgId: string): Promise<Plan | null> {
  await assertWritable(ctx, orgId);
  if (!enforcementSettings(ctx).planLimits) return null;
  const org = await billingOrg(ctx, orgId);
  return org ? planOf(org.plan) : null;
}

/** 403 when adding `adding` more domains would pass the plan's limit; 402 when read-only. */
export async function assertCanAddDomain(ctx: LimitsContext, orgId: string, adding = 1): Promise<void> {
  const plan = await enforcedPlan(ctx, orgId);
  if (!plan || plan.maxDomains === null) return;
  if ((await usageOf(ctx, orgId)).domains + adding > plan.maxDomains) throw new PlanLimitError(limitMessage(plan.key, "domains"));
}

/**
 * 403 when one more team member would pass the plan's limit; 402 when read-only.
 * Members and pending invitations both count, so call it before creating an invitation.
 * When accepting an invitation (which already counts), pass `{ acceptingInvitation: true }`.
 */
export async function assertCanAddMember(ctx: LimitsContext, orgId: string, options: { acceptingInvitation?: boolean } = {}): Promise<void> {
  const plan = await enforcedPlan(ctx, orgId);
  if (!plan || plan.maxMembers === null) return;
  const adding = options.acceptingInvitation ? 0 : 1;
  if ((await usageOf(ctx, orgId)).members + adding > plan.maxMembers) throw new PlanLimitError(limitMessage(plan.key, "team members"));
}
