import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ClientReportResponse, ImportResponse, ImportRow, PortfolioClient, PortfolioResponse } from "../../../src/features/portfolio/contract";
import { apiRequest } from "../../lib/api";
import { ME_KEY } from "../../lib/auth";

export type { ClientReportResponse, ImportResponse, ImportRow, PortfolioClient };
export const PORTFOLIO_KEY = ["/api/portfolio"] as const;

/** GET /api/portfolio through the default query function. */
export function usePortfolio() {
  return useQuery<PortfolioResponse>({ queryKey: PORTFOLIO_KEY });
}

/** POST /api/portfolio/import: a dry run (preview) or the import itself. */
export function useImportClients() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { csv: string; dryRun: boolean }) => (await (await apiRequest("POST", "/api/portfolio/import", input)).json()) as ImportResponse,
    onSuccess: (result) => {
      if (result.dryRun) return;
      // new clients appear in the portfolio and in the organization switcher
      void client.invalidateQueries({ queryKey: PORTFOLIO_KEY });
      void client.invalidateQueries({ queryKey: ME_KEY });
    },
  });
}

const reportKey = (clientId: string) => [`/api/portfolio/clients/${clientId}/report`] as const;

/** GET /api/portfolio/clients/:id/report: a client's report contacts (only fetched while its dialog is open). */
export function useClientReport(clientId: string | null) {
  return useQuery<ClientReportResponse>({ queryKey: reportKey(clientId ?? ""), enabled: !!clientId });
}

/** PUT /api/portfolio/clients/:id/report */
export function useSaveClientReport(clientId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (input: { contacts: string[]; enabled: boolean }) => (await (await apiRequest("PUT", `/api/portfolio/clients/${clientId}/report`, input)).json()) as ClientReportResponse,
    onSuccess: (saved) => client.setQueryData(reportKey(clientId), saved),
  });
}
