import { z } from "zod";
import { DOMAIN_REQUIRED_MESSAGE, normalizeDomainInput } from "../../lib/domain-name";
import type { OnboardingStep } from "../../lib/onboarding";
import type { ReportPath } from "../../lib/report-path";

export type { OnboardingStep, ReportPath };

/** GET /api/onboarding: the getting-started checklist and where each domain's reports go. */
export interface OnboardingView {
  steps: OnboardingStep[];
  /** every step is done */
  complete: boolean;
  /** put away (allowed once complete) */
  dismissed: boolean;
  /** receiver: this server receives report mail; mailbox: a connected mailbox is read; choice: neither yet */
  mode: ReportPath["mode"];
  /** the report path of each of the organisation's domains, by name */
  paths: ReportPath[];
}

/** GET /api/report-path?domain= */
export const reportPathQuerySchema = z.object({
  domain: z
    .string({ error: DOMAIN_REQUIRED_MESSAGE })
    .max(300, "Please enter a valid domain name (e.g., example.com)")
    .transform((value, ctx) => {
      const result = normalizeDomainInput(value);
      if (!result.ok) {
        ctx.addIssue({ code: "custom", message: result.message });
        return z.NEVER;
      }
      return result.domain;
    }),
});

export const CHECKLIST_NOT_DONE = "The getting-started checklist can be put away once every step is done.";
