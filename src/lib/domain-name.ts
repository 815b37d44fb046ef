/**
 * The one domain-name rule (SPEC §5 DNS lookup), shared by the DNS lookup, the domain list and
 * the UI forms: input trimmed and lower-cased; empty → "Domain Required"; anything that is not
 * alphanumeric/hyphen labels followed by a letter TLD of two or more characters → "Invalid Domain".
 */
export type DomainInputResult =
  | { ok: true; domain: string }
  | { ok: false; error: "Domain Required" | "Invalid Domain"; message: string };

export const DOMAIN_REQUIRED_MESSAGE = "Please enter a domain name";
export const INVALID_DOMAIN_MESSAGE = "Please enter a valid domain name (e.g., example.com)";

/** labels: alphanumeric, hyphens inside only, at most 63 characters; TLD letters only, ≥ 2 */
const DOMAIN_PATTERN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const MAX_DOMAIN_LENGTH = 253;

export function isValidDomainName(domain: string): boolean {
  return domain.length <= MAX_DOMAIN_LENGTH && DOMAIN_PATTERN.test(domain);
}

export function normalizeDomainInput(input: unknown): DomainInputResult {
  const trimmed = typeof input === "string" ? input.trim() : "";
  if (trimmed === "") return { ok: false, error: "Domain Required", message: DOMAIN_REQUIRED_MESSAGE };
  const domain = trimmed.toLowerCase();
  if (!isValidDomainName(domain)) {
    return { ok: false, error: "Invalid Domain", message: INVALID_DOMAIN_MESSAGE };
  }
  return { ok: true, domain };
}
