/** Shared set-up for the billing server tests: the app with billing on (against the Stripe stand-in) or off. */
import { testConfig, type Config } from "../../src/config";
import { createStripeClient } from "../../src/features/billing/settings";
import { makeTestApp, type TestApp } from "../support/app";
import { stripeConfig } from "../support/stripe-server";

export function billingConfig(stripeUrl: string | null, overrides: Partial<Config> = {}): Config {
  return testConfig({ ...(stripeUrl ? stripeConfig(stripeUrl) : {}), ...overrides });
}

/** The real app; with a stand-in URL billing is on and the SDK talks to the stand-in. */
export async function billingApp(stripeUrl: string | null, options: { config?: Partial<Config>; now?: () => Date } = {}): Promise<TestApp> {
  const config = billingConfig(stripeUrl, options.config);
  const stripe = createStripeClient(config);
  return await makeTestApp({ config, deps: { stripe, ...(options.now ? { now: options.now } : {}) } });
}

export const trialBody = (overrides: Record<string, unknown> = {}) => ({
  company: "Acme Dental",
  email: `owner-${crypto.randomUUID().slice(0, 8)}@acme.test`,
  domains: 3,
  firstName: "Ada",
  lastName: "Lovelace",
  selectedPlan: "growth",
  ...overrides,
});
