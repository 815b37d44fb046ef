/**
 * The trial sign-up (SPEC §4 Trial flow, §7 POST /api/create-trial-setup): creates the
 * account, its organisation and, with billing on, the Stripe customer and a SetupIntent
 * whose client secret the payment step confirms.
 */
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { OrgContext, PublicContext, ServiceContext } from "../../http/access";
import { ConflictError, ServiceError } from "../../http/errors";
import { PLANS } from "../../lib/plans";
import { createAccount, isEmailTaken, setUserName, userByEmail } from "../auth/service";
import { organizationInfo } from "../orgs/audience";
import { renameOrganization, setBillingState } from "../orgs/service";
import { createSession } from "../auth/sessions";
import { mailAccountExists, mailVerificationLink } from "../auth/email-verification";
import { organizationsOf } from "../orgs/directory";
import type { BillingStatus, TrialSetupInput } from "./contract";
import { billingOrg, enforcementSettings, planOf, readOnlyReason, READ_ONLY_MESSAGES, usageOf } from "./limits";

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
  /** the new session's cookie token; null when nobody is signed in by this call (mail on, or a resumed setup) */
  sessionToken: string | null;
  /** true with mail on: the visitor was sent a link and is not signed in */
  verificationSent: boolean;
  /** null when the email had an account already (nothing was made; its owner was mailed) */
  orgId: string | null;
  userId: string | null;
}

/**
 * Creates the user (no password yet), the organisation they own on the chosen plan and their
 * owner membership, all in one transaction. With billing on, the Stripe customer and
 * SetupIntent are created first; if the database work then fails the customer is deleted
 * again, so nothing is left half-made on either side.
 *
 * Without mail the visitor is signed in, as sign-up does. With mail, as sign-up does, nobody
 * is signed in: the address gets a confirmation link that signs in, and the answer is the same
 * whether or not the email already has an account.
 */
export async function createTrialSetup(ctx: PublicContext, input: TrialSetupInput): Promise<TrialSetupResult> {
  const now = ctx.now();
  const email = input.email.trim().toLowerCase();
  const caller = await ctx.actor();
  if (caller?.user.email === email) {
    const resumed = await resumeTrialSetup(ctx, { userId: caller.user.userId, hasPassword: caller.user.hasPassword, orgId: caller.orgId, role: caller.role }, input);
    if (resumed) return resumed;
  }
  const existing = await userByEmail(ctx, email);
  if (existing) {
    // Without mail the visitor is told (nobody else could be). With mail, a taken email gets what
    // a new one gets — a payment step and "check your email" — and its owner is mailed instead.
    if (!ctx.mailer) throw emailTaken();
    const mailing = { ...ctx, mailer: ctx.mailer };
    if (!existing.emailVerifiedAt && !existing.passwordHash) {
      // a trial nobody has confirmed yet: whoever opens the new link owns it, with the details sent last
      const resumed = await resumeUnconfirmedTrial(ctx, existing.id, input);
      await mailVerificationLink(mailing, { id: existing.id, name: resumed ? fullName(input) : existing.name, email });
      if (resumed) return resumed;
    } else {
      mailAccountExists(mailing, existing, "trial");
    }
    let decoy: Stripe.SetupIntent | null = null;
    if (ctx.stripe) {
      // a card entered on it belongs to no customer and is ignored by the webhook
      decoy = await ctx.stripe.setupIntents
        .create({ usage: "off_session", allowed_payment_method_types: ["card"], metadata: { purpose: "trial_email_taken" } })
        .catch((error: unknown) => {
          ctx.log.error("stripe_trial_setup_failed", { error: error instanceof Error ? error.message : String(error) });
          throw new PaymentProviderError();
        });
    }
    return { clientSecret: decoy?.client_secret ?? null, sessionToken: null, verificationSent: true, orgId: null, userId: null };
  }

  const { billingAccounts } = ctx.store.t;
  const orgId = crypto.randomUUID();
  const userId = crypto.randomUUID();
  const stripe = ctx.stripe ?? null;
  let provider: { customer: Stripe.Customer; setupIntent: Stripe.SetupIntent } | null = null;
  if (stripe) provider = await createProviderObjects(ctx, stripe, orgId, email, input);

  const trialEndsAt = new Date(now.getTime() + TRIAL_DAYS * 86400_000);
  try {
    const sessionToken = await ctx.store.write(async (tx) => {
      await createAccount(ctx, {
        userId,
        name: fullName(input),
        email,
        passwordHash: null,
        organization: {
          id: orgId,
          name: input.company.trim(),
          plan: input.selectedPlan,
          // Billing off: the chosen plan sets the limits and no trial clock runs ("none" = not billed).
          planStatus: provider ? "trialing" : "none",
          trialEndsAt: provider ? trialEndsAt : null,
        },
      });
      if (provider) {
        await tx.insert(billingAccounts).values({ orgId, stripeCustomerId: provider.customer.id, setupIntentId: provider.setupIntent.id });
      }
      return ctx.mailer ? null : createSession(ctx, userId, orgId, now);
    });
    ctx.log.info("trial_started", { orgId, plan: input.selectedPlan, billing: provider ? "stripe" : "off" });
    // after the commit; the mail goes out in the background and a failure never undoes the trial
    // (sending the form again mails a new link)
    if (ctx.mailer) {
      try {
        await mailVerificationLink({ ...ctx, mailer: ctx.mailer }, { id: userId, name: fullName(input), email });
      } catch (error) {
        ctx.log.warn("mail_failed", { kind: "trial_email_verification", error: error instanceof Error ? error.message : String(error) });
      }
    }
    return { clientSecret: provider?.setupIntent.client_secret ?? null, sessionToken, verificationSent: !!ctx.mailer, orgId, userId };
  } catch (error) {
    if (provider && stripe) {
      await stripe.customers.del(provider.customer.id).catch((e: unknown) => ctx.log.warn("stripe_customer_cleanup_failed", { customer: provider!.customer.id, error: String(e) }));
    }
    if (isEmailTaken(error)) throw emailTaken();
    throw error;
  }
}

const fullName = (input: TrialSetupInput) => `${input.firstName.trim()} ${input.lastName.trim()}`;

/** The unconfirmed trial account's own organisation (the one it owns), to resume its setup. */
async function resumeUnconfirmedTrial(ctx: ServiceContext, userId: string, input: TrialSetupInput): Promise<TrialSetupResult | null> {
  const own = (await organizationsOf(ctx, userId)).find((org) => org.role === "owner" && !org.parentId);
  if (!own) return null;
  const resumed = await resumeTrialSetup(ctx, { userId, hasPassword: false, orgId: own.id, role: "owner" }, input);
  return resumed && { ...resumed, verificationSent: true };
}

/**
 * The visitor went Back from the payment step and sent the details again: their account exists
 * already (made by the first call, no password, card not yet saved). Apply the new plan and
 * company name and hand out the same SetupIntent instead of refusing the email as taken.
 */
async function resumeTrialSetup(ctx: ServiceContext, account: { userId: string; hasPassword: boolean; orgId: string; role: string }, input: TrialSetupInput): Promise<TrialSetupResult | null> {
  const { billingAccounts } = ctx.store.t;
  const { userId, orgId } = account;
  if (account.hasPassword || account.role !== "owner") return null;
  const org = await organizationInfo(ctx, orgId);
  if (!org || org.parentId || !["trialing", "none"].includes(org.planStatus)) return null;
  const [billing] = await ctx.store.db.select().from(billingAccounts).where(eq(billingAccounts.orgId, orgId)).limit(1);
  if (billing?.stripeSubscriptionId) return null;
  let clientSecret: string | null = null;
  if (billing?.setupIntentId) {
    if (!ctx.stripe) return null;
    try {
      const intent = await ctx.stripe.setupIntents.retrieve(billing.setupIntentId);
      if (intent.status === "succeeded" || intent.status === "canceled" || !intent.client_secret) return null;
      clientSecret = intent.client_secret;
    } catch (error) {
      ctx.log.error("stripe_trial_resume_failed", { orgId, error: error instanceof Error ? error.message : String(error) });
      throw new PaymentProviderError();
    }
  } else if (ctx.stripe) {
    return null;
  }
  await ctx.store.write(async () => {
    await setBillingState(ctx, orgId, { plan: input.selectedPlan });
    await renameOrganization(ctx, orgId, input.company.trim());
    await setUserName(ctx, userId, fullName(input));
  });
  return { clientSecret, sessionToken: null, verificationSent: false, orgId, userId };
}

async function createProviderObjects(deps: Pick<ServiceContext, "log">, stripe: Stripe, orgId: string, email: string, input: TrialSetupInput) {
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
export async function billingStatus(ctx: OrgContext): Promise<BillingStatus> {
  const { orgId, user } = ctx.actor;
  const billed = await billingOrg(ctx, orgId);
  const plan = planOf(billed?.plan ?? "growth");
  const reason = await readOnlyReason(ctx, orgId);
  const enforced = enforcementSettings(ctx).planLimits;
  return {
    plan: plan.key,
    planName: PLANS[plan.key].name,
    status: billed?.planStatus ?? "none",
    trialEndsAt: billed?.trialEndsAt?.toISOString() ?? null,
    readOnly: reason !== null,
    readOnlyMessage: reason ? READ_ONLY_MESSAGES[reason] : null,
    hasPassword: user.hasPassword,
    limits: { domains: enforced ? plan.maxDomains : null, members: enforced ? plan.maxMembers : null, enforced },
    usage: await usageOf(ctx, orgId),
  };
}
