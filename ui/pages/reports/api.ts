import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { DmarcReportDetail, DmarcReportSummary, IngestResult, UploadResponse } from "../../../src/features/reports/contract";
import { throwIfResNotOk } from "../../lib/api";

export type { DmarcReportDetail, DmarcReportSummary, IngestResult };
export const REPORTS_KEY = ["/api/dmarc-reports"] as const;

/** SPEC §7: GET /api/dmarc-reports through the default query function. */
export function useReports() {
  return useQuery<DmarcReportSummary[]>({ queryKey: REPORTS_KEY });
}

/** GET /api/dmarc-reports/:id (the default query function joins the key's segments). */
export function useReport(id: string | null) {
  return useQuery<DmarcReportDetail>({ queryKey: ["/api/dmarc-reports", id ?? ""], enabled: Boolean(id) });
}

/** POST /api/reports/upload: multipart, one or many files. */
export async function uploadReports(files: File[]): Promise<UploadResponse> {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  const res = await fetch("/api/reports/upload", { method: "POST", body: form, credentials: "include" });
  await throwIfResNotOk(res);
  return (await res.json()) as UploadResponse;
}

export function useUploadReports() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: uploadReports,
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: REPORTS_KEY });
      void client.invalidateQueries({ queryKey: ["/api/domains"] });
      void client.invalidateQueries({ queryKey: ["/api/dashboard/stats"] });
    },
  });
}
