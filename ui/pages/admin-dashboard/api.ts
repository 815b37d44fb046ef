import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { ContactSubmission } from "../../../src/features/admin/contract";
import { apiRequest } from "../../lib/api";

export const SUBMISSIONS_KEY = ["/api/admin/contact-submissions"] as const;

/** SPEC §7: X-Admin-Session and JSON content type; only runs when a session id exists. */
export function useContactSubmissions(sessionId: string | null) {
  return useQuery({
    queryKey: SUBMISSIONS_KEY,
    enabled: Boolean(sessionId),
    queryFn: async () => {
      const res = await apiRequest("GET", SUBMISSIONS_KEY[0], undefined, { "X-Admin-Session": sessionId ?? "", "Content-Type": "application/json" });
      return (await res.json()) as ContactSubmission[];
    },
  });
}

export function useMarkRead(sessionId: string | null) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      const res = await apiRequest("PUT", `/api/admin/contact-submissions/${encodeURIComponent(id)}/read`, undefined, { "X-Admin-Session": sessionId ?? "" });
      return res.json();
    },
    onSuccess: () => client.invalidateQueries({ queryKey: SUBMISSIONS_KEY }),
  });
}

export function useAdminLogout() {
  return useMutation({
    mutationFn: async (sessionId: string) => {
      const res = await apiRequest("POST", "/api/admin/logout", { sessionId });
      return res.json();
    },
  });
}
