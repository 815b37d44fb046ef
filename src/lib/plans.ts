/**
 * The subscription plans of SPEC §9: one source for the landing page's pricing section,
 * the trial signup's plan step and the server's billing code. Pure data, no I/O.
 */
export const PLAN_KEYS = ["essentials", "growth", "scale"] as const;
export type PlanKey = (typeof PLAN_KEYS)[number];

export interface Plan {
  key: PlanKey;
  /** the name shown to a customer */
  name: string;
  /** price in whole US dollars per month */
  monthlyPrice: number;
  /** the price as shown, e.g. "$99/month" */
  priceLabel: string;
  /** one line under the name */
  tagline: string;
  /** the contents of the plan, in SPEC §9's order */
  features: string[];
  /** domains allowed; null means unlimited */
  maxDomains: number | null;
  /** team members allowed; null means unlimited */
  maxMembers: number | null;
  mostPopular: boolean;
}

export const PLANS: Record<PlanKey, Plan> = {
  essentials: {
    key: "essentials",
    name: "Essentials",
    monthlyPrice: 29,
    priceLabel: "$29/month",
    tagline: "For small practices and agencies getting protected",
    features: ["Up to 10 domains", "5 team members", "Weekly compliance/DMARC reports", "Email support"],
    maxDomains: 10,
    maxMembers: 5,
    mostPopular: false,
  },
  growth: {
    key: "growth",
    name: "Growth",
    monthlyPrice: 99,
    priceLabel: "$99/month",
    tagline: "For growing teams that want live visibility",
    features: ["Up to 50 domains", "25 team members", "Live threat dashboard", "Advanced analytics", "Priority support", "BIMI readiness"],
    maxDomains: 50,
    maxMembers: 25,
    mostPopular: true,
  },
  scale: {
    key: "scale",
    name: "Scale / Enterprise",
    monthlyPrice: 299,
    priceLabel: "$299/month",
    tagline: "For MSPs and enterprises with many domains",
    features: [
      "Unlimited domains and users",
      "White-label",
      "Custom integrations",
      "Phone and chat (Slack) support",
      "Dedicated customer success manager",
    ],
    maxDomains: null,
    maxMembers: null,
    mostPopular: false,
  },
};

/** Plans in display order (cheapest first). */
export const PLAN_LIST: Plan[] = PLAN_KEYS.map((key) => PLANS[key]);

/** SPEC §9: Growth is the default choice. */
export const DEFAULT_PLAN: PlanKey = "growth";

export function isPlanKey(value: unknown): value is PlanKey {
  return typeof value === "string" && (PLAN_KEYS as readonly string[]).includes(value);
}
