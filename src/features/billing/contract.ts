/**
 * The trial form (SPEC §3 Trial form, §5 Trial details): one schema for the /trial details
 * step and for POST /api/create-trial-setup, so each rule and its message live once.
 */
import { z } from "zod";
import { PLAN_KEYS } from "../../lib/plans";
import { passwordSchema } from "../auth/contract";

export const DOMAINS_MIN = 1;
export const DOMAINS_MAX = 100;
const domainsMessage = `Number of domains must be a whole number from ${DOMAINS_MIN} to ${DOMAINS_MAX}`;

export const trialSetupSchema = z.object({
  company: z.string({ error: "Company name is required" }).trim().min(1, "Company name is required").max(200, "Company name must be at most 200 characters"),
  email: z
    .string({ error: "Email is required" })
    .trim()
    .min(1, "Email is required")
    .max(254, "Email must be at most 254 characters")
    .email("Please enter a valid email address"),
  domains: z.number({ error: domainsMessage }).int(domainsMessage).min(DOMAINS_MIN, domainsMessage).max(DOMAINS_MAX, domainsMessage),
  firstName: z.string({ error: "First name is required" }).trim().min(1, "First name is required").max(100, "First name must be at most 100 characters"),
  lastName: z.string({ error: "Last name is required" }).trim().min(1, "Last name is required").max(100, "Last name must be at most 100 characters"),
  selectedPlan: z.enum(PLAN_KEYS, { error: "Choose a plan: essentials, growth or scale" }),
});

export type TrialSetupInput = z.infer<typeof trialSetupSchema>;

/** SPEC §5: the domains input is parsed as an integer, with 1 when it is not a number. */
export function parseDomainCount(value: unknown): number {
  const n = Number.parseInt(String(value ?? ""), 10);
  return Number.isNaN(n) ? 1 : n;
}

/** What the trial answers with mail on: the same for a new email and a taken one. */
export const TRIAL_VERIFICATION_MESSAGE =
  "Check your email to continue: we sent a link to this address. Open it to confirm the address and sign in to your trial (look in the spam folder if it does not arrive).";

export interface TrialSetupResponse {
  /** the SetupIntent's client secret; null when billing is off (self-hosted mode) */
  clientSecret: string | null;
  /**
   * With mail on: nobody is signed in yet; the account is used once the mailed link is opened.
   * Absent with mail off (the visitor is signed in, as sign-up does).
   */
  verificationSent?: true;
  message?: string;
}

export interface BillingConfig {
  enabled: boolean;
  publishableKey: string | null;
}

/** GET /api/billing/status: the current organisation's plan, for banners and limit hints. */
export interface BillingStatus {
  plan: string;
  planName: string;
  status: string;
  trialEndsAt: string | null;
  readOnly: boolean;
  readOnlyMessage: string | null;
  hasPassword: boolean;
  limits: { domains: number | null; members: number | null; enforced: boolean };
  usage: { domains: number; members: number };
}

/** Setting the first password of an account made by /trial: the same rules as signing up. */
export const setPasswordSchema = z.object({ password: passwordSchema });
