import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ImportResponse, ImportRow, PortfolioClient, PortfolioResponse } from "../../../src/features/portfolio/contract";
import { apiRequest } from "../../lib/api";
import { ME_KEY } from "../../lib/auth";

export type { ImportResponse, ImportRow, PortfolioClient };
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
