import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { jsonError, NotFoundError, parseInput } from "../../http/errors";
import { sessionCookie } from "../auth/cookie";
import { setPasswordSchema, TRIAL_VERIFICATION_MESSAGE, trialSetupSchema, type BillingConfig, type TrialSetupResponse } from "./contract";
import { setFirstPassword } from "./password";
import { billingStatus, createTrialSetup } from "./service";
import { billingSettings } from "./settings";
import { handleStripeEvent } from "./webhook";

/** Trial sign-up, billing state, and the Stripe webhook. */
export function billingRoutes(deps: AppDeps) {
  const settings = billingSettings(deps.config);
  const stripe = deps.stripe ?? null;

  return new Elysia({ name: "billing" })
    .use(access(deps))
    .get(
      "/api/billing/config",
      ({ set }): BillingConfig => {
        set.headers["cache-control"] = "no-store";
        return { enabled: stripe !== null, publishableKey: stripe ? settings.publishableKey : null };
      },
      { public: true },
    )
    .post(
      "/api/create-trial-setup",
      async ({ ctx, body, request, set }): Promise<TrialSetupResponse> => {
        await ctx.limiter.hit("trial", clientAddress(ctx, request), 10, 3600, "Too many trials started from this address. Please try again in an hour.");
        const input = parseInput(trialSetupSchema, body);
        const result = await createTrialSetup(ctx, input);
        // a resumed setup keeps its session; with mail on nobody is signed in until the mailed link is opened
        if (result.sessionToken) set.headers["set-cookie"] = sessionCookie(ctx.config, result.sessionToken);
        set.headers["cache-control"] = "no-store";
        if (result.verificationSent) return { clientSecret: result.clientSecret, verificationSent: true, message: TRIAL_VERIFICATION_MESSAGE };
        return { clientSecret: result.clientSecret };
      },
      { public: true },
    )
    .get(
      "/api/billing/status",
      ({ ctx, set }) => {
        set.headers["cache-control"] = "no-store";
        return billingStatus(ctx);
      },
      { org: "read" },
    )
    .post(
      "/api/auth/set-password",
      async ({ ctx, body, request }) => {
        await ctx.limiter.hit("set-password", clientAddress(ctx, request), 10, 900);
        const { password } = parseInput(setPasswordSchema, body);
        await setFirstPassword(ctx, password);
        return { success: true };
      },
      { signedIn: true },
    )
    .post(
      "/api/stripe/webhook",
      async ({ ctx, request }) => {
        if (!stripe || !settings.webhookSecret) throw new NotFoundError("Billing is not enabled on this server.");
        const signature = request.headers.get("stripe-signature");
        const payload = await request.text();
        if (!signature) return jsonError(400, "bad_signature", "Missing Stripe-Signature header.");
        let event;
        try {
          event = await stripe.webhooks.constructEventAsync(payload, signature, settings.webhookSecret);
        } catch (error) {
          ctx.log.warn("stripe_webhook_refused", { reason: error instanceof Error ? error.message.split("\n")[0] : String(error) });
          return jsonError(400, "bad_signature", "The webhook signature is missing, wrong or too old.");
        }
        const outcome = await handleStripeEvent({ store: ctx.store, stripe, log: ctx.log, prices: settings.prices, now: ctx.now() }, event);
        return { received: true, outcome };
      },
      // verified by Stripe's signature, not by a session
      { public: true, parse: "none" },
    );
}
