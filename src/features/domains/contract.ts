import { z } from "zod";
import { DOMAIN_REQUIRED_MESSAGE, normalizeDomainInput } from "../../lib/domain-name";

/** POST /api/domains: the SPEC §5 domain-name rule (trimmed, lower-cased). */
export const addDomainSchema = z.object({
  name: z
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
export type AddDomainInput = z.input<typeof addDomainSchema>;

/** SPEC §3 Domain. */
export interface DomainView {
  id: string;
  name: string;
  dmarcPolicy: string | null;
  spfStatus: string | null;
  dkimStatus: string | null;
  overallStatus: string;
  lastReportAt: string | null;
  /** the last check that succeeded (the statuses are from then); null: not checked yet */
  lastCheckedAt: string | null;
  /** the last check the DNS server did not answer, when it came after lastCheckedAt; null once a check succeeds */
  checkFailedAt: string | null;
  createdAt: string;
}

/** POST /api/domains/:id/check: the domain after the check and the DNS events it raised. */
export interface DomainCheckView {
  domain: DomainView;
  events: { id: string; type: string; title: string; severity: "critical" | "warning" | "info" | "good" }[];
}
