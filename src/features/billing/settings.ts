/**
 * Billing configuration: which Stripe keys and prices are set, and the Stripe client built
 * from them. Without a secret key billing is off (self-hosted mode).
 */
import type Stripe from "stripe";
import { ConfigError, type Config } from "../../config";
import { PLAN_KEYS, type PlanKey } from "../../lib/plans";

export interface BillingSettings {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  prices: Record<PlanKey, string>;
  apiBase: string;
  planLimits: boolean;
}

export function billingSettings(config: Config): BillingSettings {
  return {
    secretKey: config.stripeSecretKey.trim(),
    publishableKey: config.stripePublishableKey.trim(),
    webhookSecret: config.stripeWebhookSecret.trim(),
    prices: { essentials: config.stripePriceEssentials.trim(), growth: config.stripePriceGrowth.trim(), scale: config.stripePriceScale.trim() },
    apiBase: config.stripeApiBase.trim(),
    planLimits: config.planLimits,
  };
}

/**
 * The Stripe client when a secret key is configured, else null (billing off). A half-done
 * configuration stops start-up with one line rather than failing at a customer's first card.
 */
export function createStripeClient(config: Config): Stripe | null {
  const s = billingSettings(config);
  if (!s.secretKey) {
    if (s.publishableKey || s.webhookSecret) throw new ConfigError("--stripe-secret-key (STRIPE_SECRET_KEY) is required when other Stripe settings are given");
    return null;
  }
  const missing = [
    !s.publishableKey && "--stripe-publishable-key (STRIPE_PUBLISHABLE_KEY)",
    !s.webhookSecret && "--stripe-webhook-secret (STRIPE_WEBHOOK_SECRET)",
    ...PLAN_KEYS.filter((k) => !s.prices[k]).map((k) => `--stripe-price-${k} (STRIPE_PRICE_${k.toUpperCase()})`),
  ].filter(Boolean);
  if (missing.length) throw new ConfigError(`billing is on (a Stripe secret key is set) but ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} missing`);
  // the Stripe library loads only when billing is on
  const m = require("stripe");
  const StripeClient: typeof Stripe = m.default ?? m;
  return new StripeClient(s.secretKey, { ...stripeEndpoint(s.apiBase), maxNetworkRetries: 1, timeout: 20_000, telemetry: false, appInfo: { name: "dmarcwarden" } });
}

/** `--stripe-api-base http://127.0.0.1:12111` → the SDK's host/port/protocol options. */
export function stripeEndpoint(apiBase: string): { host?: string; port?: number; protocol?: "http" | "https" } {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === "http:" ? "http" : "https";
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === "http" ? 80 : 443, protocol };
}
