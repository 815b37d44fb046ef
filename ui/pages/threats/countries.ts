import type { IpThreat } from "../dashboard/api";

export interface CountryThreats {
  country: string;
  countryCode: string | null;
  sources: number;
  attempts: number;
  high: number;
}

/** Failing sources of the last 24 h grouped by country, most attempts first. */
export function byCountry(threats: IpThreat[]): CountryThreats[] {
  const map = new Map<string, CountryThreats>();
  for (const t of threats) {
    let c = map.get(t.country);
    if (!c) map.set(t.country, (c = { country: t.country, countryCode: t.countryCode ?? null, sources: 0, attempts: 0, high: 0 }));
    c.sources++;
    c.attempts += t.attemptCount;
    if (t.threatLevel === "high") c.high++;
  }
  return [...map.values()].sort((a, b) => b.attempts - a.attempts || a.country.localeCompare(b.country));
}
