/** The trial flow's calls: billing configuration (publishable key at run time) and the details call. */
import { useQuery } from "@tanstack/react-query";
import type { BillingConfig, TrialSetupInput, TrialSetupResponse } from "../../../src/features/billing/contract";
import { apiRequest } from "../../lib/api";

export const billingConfigKey = ["/api/billing/config"] as const;

export function useBillingConfig() {
  return useQuery<BillingConfig>({ queryKey: billingConfigKey });
}

/**
 * SPEC §7 POST /api/create-trial-setup: answers the SetupIntent's client secret (null with billing
 * off). Without mail on the server it signs the visitor in; with mail it sends a confirmation link
 * instead (`verificationSent`).
 */
export async function createTrialSetup(input: TrialSetupInput): Promise<TrialSetupResponse> {
  const res = await apiRequest("POST", "/api/create-trial-setup", input);
  return (await res.json()) as TrialSetupResponse;
}

/** Where the payment provider sends the visitor after confirming the card (SPEC §2, §7). */
export const TRIAL_RETURN_PATH = "/app/dashboard?trial=success";

/** Where the payment provider sends the visitor when nobody is signed in yet (mail on: the confirmation link signs in). */
export const TRIAL_CHECK_EMAIL_PATH = "/trial?step=check-email";

/** Where the sign-up lands with billing off (self-hosted): the account is ready, no trial clock runs. */
export const WELCOME_PATH = "/app/dashboard?welcome=1";
