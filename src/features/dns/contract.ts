/**
 * POST /api/dns-lookup input, shared by the server and the lookup tool. The domain rule and
 * its SPEC §5 messages live in src/lib/domain-name.ts; selectors are bounded here.
 */
import { z } from "zod";
import { MAX_REQUEST_SELECTORS, SELECTOR_PATTERN } from "../../lib/dns/selectors";

export const DNS_LOOKUP_LIMIT = { perWindow: 20, windowSeconds: 60 } as const;

export const dnsLookupRequest = z.object({
  domain: z.unknown().optional(),
  selectors: z
    .array(z.string().trim().max(253, "A DKIM selector is at most 253 characters.").regex(SELECTOR_PATTERN, "A DKIM selector is letters, digits, hyphens and underscores, separated by dots (e.g. selector1)."))
    .max(MAX_REQUEST_SELECTORS, `Enter at most ${MAX_REQUEST_SELECTORS} DKIM selectors.`)
    .optional(),
});
export type DnsLookupRequest = z.infer<typeof dnsLookupRequest>;

/** "s1, google selector2" → ["s1", "google", "selector2"] (the tool's optional selectors field). */
export function splitSelectors(input: string): string[] {
  return input.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);
}

/** The TXT record an organisation publishes to prove it controls a name (a custom hostname, an SSO email domain). */
export interface DnsProofRecord {
  /** where to publish it, e.g. _dmarcwarden-verify.example.com */
  name: string;
  type: "TXT";
  /** the record's exact value */
  value: string;
}
