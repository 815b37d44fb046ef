/**
 * The trial sign-up (SPEC §4 Trial flow, §7 POST /api/create-trial-setup): creates the
 * account, its organisation and, with billing on, the Stripe customer and a SetupIntent
 * whose client secret the payment step confirms.
 */
import { and, eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { DB } from "../../db";
import { writeTransactionDb } from "../../db/transaction";
import { billingAccounts, memberships, organizations, users } from "../../db/schema";
import type { AppDeps } from "../../deps";
import { ConflictError, ServiceError } from "../../http/errors";
import { PLANS } from "../../lib/plans";
import { mailPasswordLink } from "../auth/password-links";
import { createSession, type SessionUser } from "../auth/sessions";
import { uniqueSlug } from "../orgs/directory";
import type { TrialSetupInput } from "./contract";
import { readOnlyReason, READ_ONLY_MESSAGES, planOf, usageOf, enforcementSettings } from "./limits";
import type { BillingStatus } from "./contract";

export const TRIAL_DAYS = 7;

export class PaymentProviderError extends ServiceError {
  constructor() {
    super(502, "payment_provider_unavailable", "We could not reach the payment provider. Nothing was charged; please try again in a moment.");
  }
}

const emailTaken = () =>
  new ConflictError("An account with this email already exists. Sign in at /login instead, or use another email address.", {
    email: "An account with this email already exists. Sign in instead.",
  });

export interface TrialSetupResult {
  clientSecret: string | null;
  sessionToken: string;
  orgId: string;
  userId: string;
}

/**
 * Creates the user (no password yet), the organisation they own on the chosen plan, their
 * owner membership and a signed-in session, all in one transaction. With billing on, the
 * Stripe customer and SetupIntent are created first; if the database work then fails the
 * customer is deleted again, so nothing is left half-made on either side.
 */
export async function createTrialSetup(
  deps: Pick<AppDeps, "store" | "stripe" | "log" | "mailer">,
  input: TrialSetupInput,
  now: Date,
  signedIn: SessionUser | null = null,
): Promise<TrialSetupResult> {
  const db = deps.store.db;
  const email = input.email.trim().toLowerCase();
  const resumed = signedIn?.email === email ? await resumeTrialSetup(deps, signedIn, input) : null;
  if (resumed) return resumed;
  if (db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) throw emailTaken();

  const orgId = crypto.randomUUID();
  const userId = crypto.randomUUID();
  const stripe = deps.stripe ?? null;
  let provider: { customer: Stripe.Customer; setupIntent: Stripe.SetupIntent } | null = null;
  if (stripe) provider = await createProviderObjects(deps, stripe, orgId, email, input);

  const trialEndsAt = new Date(now.getTime() + TRIAL_DAYS * 86400_000);
  try {
    const sessionToken = writeTransactionDb(db, (tx) => {
      const t = tx as unknown as DB;
      tx.insert(users).values({ id: userId, name: `${input.firstName.trim()} ${input.lastName.trim()}`, email, passwordHash: null }).run();
      tx.insert(organizations)
        .values({
          id: orgId,
          name: input.company.trim(),
          slug: uniqueSlug(t, input.company),
          plan: input.selectedPlan,
          // Billing off: the chosen plan sets the limits and no trial clock runs ("none" = not billed).
          planStatus: provider ? "trialing" : "none",
          trialEndsAt: provider ? trialEndsAt : null,
        })
        .run();
      tx.insert(memberships).values({ orgId, userId, role: "owner" }).run();
      if (provider) {
        tx.insert(billingAccounts).values({ orgId, stripeCustomerId: provider.customer.id, setupIntentId: provider.setupIntent.id }).run();
      }
      return createSession(t, userId, orgId, now);
    });
    deps.log.info("trial_started", { orgId, plan: input.selectedPlan, billing: provider ? "stripe" : "off" });
    // after the commit, in the background: a mail failure is logged and never undoes the trial
    try {
      mailPasswordLink(deps, userId, "trial", now);
    } catch (error) {
      deps.log.warn("mail_failed", { kind: "trial_password_link", error: error instanceof Error ? error.message : String(error) });
    }
    return { clientSecret: provider?.setupIntent.client_secret ?? null, sessionToken, orgId, userId };
  } catch (error) {
    if (provider && stripe) {
      await stripe.customers.del(provider.customer.id).catch((e: unknown) => deps.log.warn("stripe_customer_cleanup_failed", { customer: provider!.customer.id, error: String(e) }));
    }
    if (String(error).includes("UNIQUE") && String(error).includes("users.email")) throw emailTaken();
    throw error;
  }
}

/**
 * The visitor went Back from the payment step and sent the details again: their account exists
 * already (made by the first call, no password, card not yet saved). Apply the new plan and
 * company name and hand out the same SetupIntent instead of refusing the email as taken.
 */
async function resumeTrialSetup(deps: Pick<AppDeps, "store" | "stripe" | "log">, user: SessionUser, input: TrialSetupInput): Promise<TrialSetupResult | null> {
  const db = deps.store.db;
  if (user.hasPassword || !user.currentOrgId) return null;
  const orgId = user.currentOrgId;
  const owner = db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.userId, user.userId))).get();
  const org = db.select().from(organizations).where(eq(organizations.id, orgId)).get();
  if (owner?.role !== "owner" || !org || !["trialing", "none"].includes(org.planStatus)) return null;
  const account = db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).get();
  if (account?.stripeSubscriptionId) return null;
  let clientSecret: string | null = null;
  if (account?.setupIntentId) {
    if (!deps.stripe) return null;
    try {
      const intent = await deps.stripe.setupIntents.retrieve(account.setupIntentId);
      if (intent.status === "succeeded" || intent.status === "canceled" || !intent.client_secret) return null;
      clientSecret = intent.client_secret;
    } catch (error) {
      deps.log.error("stripe_trial_resume_failed", { orgId, error: error instanceof Error ? error.message : String(error) });
      throw new PaymentProviderError();
    }
  } else if (deps.stripe) {
    return null;
  }
  writeTransactionDb(db, (tx) => {
    tx.update(organizations).set({ plan: input.selectedPlan, name: input.company.trim() }).where(eq(organizations.id, orgId)).run();
    tx.update(users).set({ name: `${input.firstName.trim()} ${input.lastName.trim()}` }).where(eq(users.id, user.userId)).run();
  });
  return { clientSecret, sessionToken: "", orgId, userId: user.userId };
}

async function createProviderObjects(deps: Pick<AppDeps, "log">, stripe: Stripe, orgId: string, email: string, input: TrialSetupInput) {
  let customer: Stripe.Customer | null = null;
  try {
    customer = await stripe.customers.create(
      {
        email,
        name: input.company.trim(),
        metadata: { org_id: orgId, contact_name: `${input.firstName.trim()} ${input.lastName.trim()}`, plan: input.selectedPlan, expected_domains: String(input.domains) },
      },
      { idempotencyKey: `trial-customer-${orgId}` },
    );
    const setupIntent = await stripe.setupIntents.create(
      { customer: customer.id, usage: "off_session", allowed_payment_method_types: ["card"], metadata: { org_id: orgId, plan: input.selectedPlan } },
      { idempotencyKey: `trial-setup-${orgId}` },
    );
    if (!setupIntent.client_secret) throw new Error("the SetupIntent has no client secret");
    return { customer, setupIntent };
  } catch (error) {
    deps.log.error("stripe_trial_setup_failed", { orgId, error: error instanceof Error ? error.message : String(error) });
    if (customer) await stripe.customers.del(customer.id).catch(() => undefined);
    throw new PaymentProviderError();
  }
}

/** The current organisation's plan, state, limits and usage (GET /api/billing/status). */
export function billingStatus(db: DB, orgId: string, hasPassword: boolean, now: Date): BillingStatus {
  const org = db.select().from(organizations).where(eq(organizations.id, orgId)).get();
  const parent = org?.parentId ? db.select().from(organizations).where(eq(organizations.id, org.parentId)).get() : null;
  const billed = parent ?? org;
  const plan = planOf(billed?.plan ?? "growth");
  const reason = readOnlyReason(db, orgId, now);
  const enforced = enforcementSettings(db).planLimits;
  return {
    plan: plan.key,
    planName: PLANS[plan.key].name,
    status: billed?.planStatus ?? "none",
    trialEndsAt: billed?.trialEndsAt?.toISOString() ?? null,
    readOnly: reason !== null,
    readOnlyMessage: reason ? READ_ONLY_MESSAGES[reason] : null,
    hasPassword,
    limits: { domains: enforced ? plan.maxDomains : null, members: enforced ? plan.maxMembers : null, enforced },
    usage: usageOf(db, orgId, now),
  };
}
