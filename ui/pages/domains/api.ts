import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { DomainView } from "../../../src/features/domains/contract";
import { apiRequest } from "../../lib/api";

export type { DomainView };
export const DOMAINS_KEY = ["/api/domains"] as const;

/** SPEC §7: GET /api/domains through the default query function. */
export function useDomains() {
  return useQuery<DomainView[]>({ queryKey: DOMAINS_KEY });
}

export function useAddDomain() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => (await (await apiRequest("POST", "/api/domains", { name })).json()) as DomainView,
    onSuccess: () => client.invalidateQueries({ queryKey: DOMAINS_KEY }),
  });
}

export function useDeleteDomain() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      await apiRequest("DELETE", `/api/domains/${encodeURIComponent(id)}`);
    },
    onSuccess: () => client.invalidateQueries({ queryKey: DOMAINS_KEY }),
  });
}
