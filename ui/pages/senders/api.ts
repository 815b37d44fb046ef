/** Data of the sender page: GET /api/senders/:key and PUT /api/senders/:key/mark. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { SenderDetail, SenderMark } from "../../../src/features/reports/contract";
import { apiRequest } from "../../lib/api";

export type { SenderDetail, SenderMark };

export const senderUrl = (key: string, days: number) => `/api/senders/${encodeURIComponent(key)}?days=${days}`;

export const useSender = (key: string, days: number) => useQuery<SenderDetail>({ queryKey: [senderUrl(key, days)] });

/** Marks a sender; afterwards every answer a mark changes (senders, threats, tasks, stats) is read again. */
export function useMarkSender(key: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (verdict: SenderMark | null) => (await (await apiRequest("PUT", `/api/senders/${encodeURIComponent(key)}/mark`, { verdict })).json()) as { key: string; mark: SenderMark | null },
    onSuccess: () =>
      client.invalidateQueries({
        predicate: (q) => {
          const first = String(q.queryKey[0] ?? "");
          return first.startsWith("/api/senders") || first === "/api/ip-threats" || first === "/api/tasks" || first === "/api/dashboard/stats" || first.startsWith("/api/threats");
        },
      }),
  });
}
