import type { QueryClient } from "@tanstack/react-query";
import { AlertTriangle, CheckCircle2 } from "lucide-react";
import { formatRelativeTime } from "../../lib/format";
import { toast } from "../../lib/toast";

/** A report mailbox's last check (IMAP or OAuth): not yet, failed with the reason, or how many messages were read. */
export function PollStatus({ mailbox, pending }: { mailbox: { lastPolledAt: string | null; lastError: string | null; lastPollMessages: number | null }; pending: string }) {
  if (!mailbox.lastPolledAt) return <p className="text-sm opacity-70">{pending}</p>;
  const relative = formatRelativeTime(mailbox.lastPolledAt);
  const when = relative.charAt(0).toLowerCase() + relative.slice(1);
  if (mailbox.lastError)
    return (
      <div role="alert" className="alert alert-warning alert-soft text-sm">
        <AlertTriangle className="h-5 w-5 shrink-0" aria-hidden />
        <span>
          Last check {when} failed: {mailbox.lastError}
        </span>
      </div>
    );
  const count = mailbox.lastPollMessages ?? 0;
  return (
    <p className="flex items-center gap-2 text-sm text-success">
      <CheckCircle2 className="h-4 w-4" aria-hidden />
      Last checked {when}: {count === 0 ? "no new messages" : `${count} message${count === 1 ? "" : "s"} read`}.
    </p>
  );
}

/** The toast after "Check now" (IMAP or OAuth mailbox); new reports refresh the report lists and the dashboard. */
export function announceMailboxCheck(client: QueryClient, result: { ok: true; outcome: { processed: number; invalid: number } } | { ok: false; error: string }) {
  if (!result.ok) return toast({ title: "Could not check the mailbox", description: result.error, variant: "destructive" });
  const { processed, invalid } = result.outcome;
  void client.invalidateQueries({ predicate: (q) => String(q.queryKey[0]).startsWith("/api/dmarc-reports") || String(q.queryKey[0]).startsWith("/api/dashboard") });
  toast({
    title: "Mailbox checked",
    description: processed + invalid === 0 ? "No new messages." : `${processed} message${processed === 1 ? "" : "s"} with reports, ${invalid} without (moved to Invalid).`,
    variant: "success",
  });
}
