import { z } from "zod";
import { addDomainSchema } from "../domains/contract";
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
  /** the report path of each of the organization's domains, by name */
  paths: ReportPath[];
}

/** GET /api/report-path?domain=: the domain-name rule of POST /api/domains (SPEC §5), trimmed and lower-cased. */
export const reportPathQuerySchema = z.object({ domain: addDomainSchema.shape.name });

export const CHECKLIST_NOT_DONE = "The getting-started checklist can be put away once every step is done.";
