import { useMutation } from "@tanstack/react-query";
import type { DnsAnalysis } from "../../../src/features/dns/analyze";
import { apiRequest } from "../../lib/api";

export type { DnsAnalysis };
export type RecordKind = "dmarc" | "spf" | "dkim";

export interface DnsLookupInput {
  domain: string;
  selectors?: string[];
}

/** POST /api/dns-lookup (SPEC §7): the analysis of one domain. */
export async function lookupDns(input: DnsLookupInput): Promise<DnsAnalysis> {
  const res = await apiRequest("POST", "/api/dns-lookup", input);
  return res.json();
}

export function useDnsLookup(options: { onError?: (error: Error) => void } = {}) {
  return useMutation({ mutationFn: lookupDns, onError: options.onError });
}
