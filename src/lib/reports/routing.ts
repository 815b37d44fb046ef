/**
 * Which of an organisation's domains a report covers: the report's domain itself, or its
 * organisational domain (the registrable domain per the Public Suffix List, via tldts).
 */
import { getDomain } from "../tld";

export interface OwnedDomain {
  id: string;
  name: string;
}

export function organisationalDomain(domain: string): string | null {
  return getDomain(domain, { allowPrivateDomains: false }) ?? null;
}

export function matchOwnedDomain(reportDomain: string, owned: OwnedDomain[]): OwnedDomain | null {
  const name = reportDomain.toLowerCase().replace(/\.$/, "");
  const exact = owned.find((d) => d.name === name);
  if (exact) return exact;
  const org = organisationalDomain(name);
  return (org && owned.find((d) => d.name === org)) || null;
}
