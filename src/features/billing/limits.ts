// Plan limits and the read-only state, enforced on the server. Other features call these
// before a write; each throws a ServiceError (403 naming the limit and the plan that lifts it,
// or 402 when the organisation is read-only). Data is never deleted by billing.
import { and, count, countDistinct, eq, gt, inArray, isNull } from "drizzle-orm";
import type { DB } from "../../db";
import { billingAccounts, domains, invitations, memberships, organizations } from "../../db/schema";
import { PaymentRequiredError, ServiceError } from "../../http/errors";
import { isPlanKey, PLAN_KEYS, PLANS, type Plan, type PlanKey } from "../../lib/plans";

export class PlanLimitError extends ServiceError {
  constructor(message: string) {
    super(403, "plan_limit_reached", message);
  }
}

export interface EnforcementSettings {
  /** domain and member limits of the plan (`--no-plan-limits` turns them off) */
  planLimits: boolean;
  /** read-only state for canceled or unpaid-trial organisations; only meaningful with billing on */
  readOnly: boolean;
}

const DEFAULTS: EnforcementSettings = { planLimits: true, readOnly: true };

// Settings are kept per database connection (not in one module-level variable) so that tests
// running several apps side by side each keep their own. A drizzle transaction shares its
// session with the database it came from, so `tx` finds the same settings as `db`.
const settingsByConnection = new WeakMap<object, EnforcementSettings>();
function connectionOf(db: DB): object {
  return ((db as unknown as { session?: { client?: object } }).session?.client ?? db) as object;
}

/** Called once per app (from billingRoutes) with what the configuration asks for. */
export function configureEnforcement(db: DB, settings: EnforcementSettings): void {
  settingsByConnection.set(connectionOf(db), settings);
}

export function enforcementSettings(db: DB): EnforcementSettings {
  return settingsByConnection.get(connectionOf(db)) ?? DEFAULTS;
}

/** The organisation whose plan applies: an MSP's client organisation is covered by its MSP's plan. */
function billingOrg(db: DB, orgId: string) {
  const org = db.select().from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) return null;
  if (!org.parentId) return org;
  return db.select().from(organizations).where(eq(organizations.id, org.parentId)).get() ?? org;
}

/** The billing organisation and every client organisation it manages. */
function coveredOrgIds(db: DB, rootId: string): string[] {
  const children = db.select({ id: organizations.id }).from(organizations).where(eq(organizations.parentId, rootId)).all();
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
export function readOnlyReason(db: DB, orgId: string, now = new Date()): ReadOnlyReason {
  if (!enforcementSettings(db).readOnly) return null;
  const org = billingOrg(db, orgId);
  if (!org) return null;
  if (org.planStatus === "canceled") return "canceled";
  if (org.planStatus === "trialing" && org.trialEndsAt && org.trialEndsAt.getTime() <= now.getTime()) {
    const account = db.select({ subscription: billingAccounts.stripeSubscriptionId }).from(billingAccounts).where(eq(billingAccounts.orgId, org.id)).get();
    if (!account?.subscription) return "trial_ended";
  }
  return null;
}

export const READ_ONLY_MESSAGES: Record<Exclude<ReadOnlyReason, null>, string> = {
  canceled:
    "This organisation is read-only because its subscription was canceled. Your data is kept: the owner can restart the subscription to make changes again.",
  trial_ended:
    "This organisation is read-only because its free trial ended without a payment card. Your data is kept: the owner can add a card to make changes again.",
};

/** 402 when the organisation is read-only; reads never call this. */
export function assertWritable(db: DB, orgId: string, now = new Date()): void {
  const reason = readOnlyReason(db, orgId, now);
  if (reason) throw new PaymentRequiredError(READ_ONLY_MESSAGES[reason]);
}

export interface Usage {
  domains: number;
  /** members plus pending (unexpired, unaccepted) invitations */
  members: number;
}

export function usageOf(db: DB, orgId: string, now = new Date()): Usage {
  const root = billingOrg(db, orgId);
  const ids = coveredOrgIds(db, root?.id ?? orgId);
  const domainCount = db.select({ n: count() }).from(domains).where(inArray(domains.orgId, ids)).get()?.n ?? 0;
  const memberCount = db.select({ n: countDistinct(memberships.userId) }).from(memberships).where(inArray(memberships.orgId, ids)).get()?.n ?? 0;
  const pending =
    db
      .select({ n: count() })
      .from(invitations)
      .where(and(inArray(invitations.orgId, ids), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now)))
      .get()?.n ?? 0;
  return { domains: domainCount, members: memberCount + pending };
}

/** 403 when adding `adding` more domains would pass the plan's limit; 402 when read-only. */
export function assertCanAddDomain(db: DB, orgId: string, adding = 1): void {
  assertWritable(db, orgId);
  if (!enforcementSettings(db).planLimits) return;
  const org = billingOrg(db, orgId);
  if (!org) return;
  const plan = planOf(org.plan);
  if (plan.maxDomains === null) return;
  if (usageOf(db, orgId).domains + adding > plan.maxDomains) throw new PlanLimitError(limitMessage(plan.key, "domains"));
}

/**
 * 403 when one more team member would pass the plan's limit; 402 when read-only.
 * Members and pending invitations both count, so call it before creating an invitation.
 * When accepting an invitation (which already counts), pass `{ acceptingInvitation: true }`.
 */
export function assertCanAddMember(db: DB, orgId: string, options: { acceptingInvitation?: boolean } = {}): void {
  assertWritable(db, orgId);
  if (!enforcementSettings(db).planLimits) return;
  const org = billingOrg(db, orgId);
  if (!org) return;
  const plan = planOf(org.plan);
  if (plan.maxMembers === null) return;
  const adding = options.acceptingInvitation ? 0 : 1;
  if (usageOf(db, orgId).members + adding > plan.maxMembers) throw new PlanLimitError(limitMessage(plan.key, "team members"));
}
