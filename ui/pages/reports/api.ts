import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type {
  DmarcReportDetail,
  DmarcReportSummary,
  FailureReportDetail,
  FailureReportSummary,
  IngestResult,
  TlsReportDetail,
  TlsReportSummary,
  UploadResponse,
} from "../../../src/features/reports/contract";
import { throwIfResNotOk } from "../../lib/api";

export type { DmarcReportDetail, DmarcReportSummary, FailureReportDetail, FailureReportSummary, IngestResult, TlsReportDetail, TlsReportSummary };
export const REPORTS_KEY = ["/api/dmarc-reports"] as const;
export const FAILURE_REPORTS_KEY = ["/api/failure-reports"] as const;
export const TLS_REPORTS_KEY = ["/api/tls-reports"] as const;

/** SPEC §7: GET /api/dmarc-reports through the default query function. */
export function useReports() {
  return useQuery<DmarcReportSummary[]>({ queryKey: REPORTS_KEY });
}

/** GET /api/dmarc-reports/:id (the default query function joins the key's segments). */
export function useReport(id: string | null) {
  return useQuery<DmarcReportDetail>({ queryKey: ["/api/dmarc-reports", id ?? ""], enabled: Boolean(id) });
}

/** GET /api/failure-reports: the organisation's failure (RUF) reports, newest first. */
export function useFailureReports() {
  return useQuery<FailureReportSummary[]>({ queryKey: FAILURE_REPORTS_KEY });
}

/** GET /api/failure-reports/:id: every stored field, original headers included. */
export function useFailureReport(id: string) {
  return useQuery<FailureReportDetail>({ queryKey: ["/api/failure-reports", id] });
}

/** GET /api/tls-reports: the organisation's SMTP TLS reports, newest period first. */
export function useTlsReports() {
  return useQuery<TlsReportSummary[]>({ queryKey: TLS_REPORTS_KEY });
}

/** GET /api/tls-reports/:id: the report with its policies and failure details. */
export function useTlsReport(id: string) {
  return useQuery<TlsReportDetail>({ queryKey: ["/api/tls-reports", id] });
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
      void client.invalidateQueries({ queryKey: FAILURE_REPORTS_KEY });
      void client.invalidateQueries({ queryKey: TLS_REPORTS_KEY });
      void client.invalidateQueries({ queryKey: ["/api/domains"] });
      void client.invalidateQueries({ queryKey: ["/api/dashboard/stats"] });
    },
  });
}
