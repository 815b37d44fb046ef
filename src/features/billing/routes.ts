import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { clientAddress } from "../../http/client";
import { jsonError, NotFoundError, parseInput, UnauthorizedError } from "../../http/errors";
import { currentUser, requireActor } from "../../http/tenant";
import { sessionCookie } from "../auth/cookie";
import { setPasswordSchema, trialSetupSchema, type BillingConfig, type TrialSetupResponse } from "./contract";
import { configureEnforcement } from "./limits";
import { setFirstPassword } from "./password";
import { billingStatus, createTrialSetup } from "./service";
import { billingSettings } from "./settings";
import { handleStripeEvent } from "./webhook";

/** Trial sign-up, billing state, and the Stripe webhook. */
export function billingRoutes(deps: AppDeps) {
  const db = deps.store.db;
  const settings = billingSettings(deps.config);
  const stripe = deps.stripe ?? null;
  // Read-only state only exists when customers can pay; plan limits unless --no-plan-limits.
  configureEnforcement(db, { planLimits: settings.planLimits, readOnly: settings.planLimits && stripe !== null });

  return new Elysia({ name: "billing" })
    .get("/api/billing/config", ({ set }): BillingConfig => {
      set.headers["cache-control"] = "no-store";
      return { enabled: stripe !== null, publishableKey: stripe ? settings.publishableKey : null };
    })
    .post("/api/create-trial-setup", async ({ body, request, set }): Promise<TrialSetupResponse> => {
      deps.limiter.hit("trial", clientAddress(deps, request), 10, 3600, "Too many trials started from this address. Please try again in an hour.");
      const input = parseInput(trialSetupSchema, body);
      const result = await createTrialSetup(deps, input, deps.now(), currentUser(db, request));
      // a resumed setup keeps its session (no new token)
      if (result.sessionToken) set.headers["set-cookie"] = sessionCookie(deps.config, result.sessionToken);
      set.headers["cache-control"] = "no-store";
      return { clientSecret: result.clientSecret };
    })
    .get("/api/billing/status", ({ request, set }) => {
      const actor = requireActor(db, request, "read");
      set.headers["cache-control"] = "no-store";
      return billingStatus(db, actor.orgId, actor.user.hasPassword, deps.now());
    })
    .post("/api/auth/set-password", async ({ body, request }) => {
      const user = currentUser(db, request);
      if (!user) throw new UnauthorizedError();
      deps.limiter.hit("set-password", clientAddress(deps, request), 10, 900);
      const { password } = parseInput(setPasswordSchema, body);
      await setFirstPassword(db, user.userId, user.email, password);
      return { success: true };
    })
    .post(
      "/api/stripe/webhook",
      async ({ request }) => {
        if (!stripe || !settings.webhookSecret) throw new NotFoundError("Billing is not enabled on this server.");
        const signature = request.headers.get("stripe-signature");
        const payload = await request.text();
        if (!signature) return jsonError(400, "bad_signature", "Missing Stripe-Signature header.");
        let event;
        try {
          event = await stripe.webhooks.constructEventAsync(payload, signature, settings.webhookSecret);
        } catch (error) {
          deps.log.warn("stripe_webhook_refused", { reason: error instanceof Error ? error.message.split("\n")[0] : String(error) });
          return jsonError(400, "bad_signature", "The webhook signature is missing, wrong or too old.");
        }
        const outcome = await handleStripeEvent({ db, stripe, log: deps.log, prices: settings.prices, now: deps.now() }, event);
        return { received: true, outcome };
      },
      { parse: "none" },
    );
}
