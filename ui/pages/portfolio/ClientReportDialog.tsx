import { Mail } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { CLIENT_REPORT_MAX_CONTACTS } from "../../../src/lib/client-report";
import { Modal, ModalHeader } from "../../components/Modal";
import { ErrorState, LoadingState } from "../../components/QueryStates";
import { ApiError, errorMessage } from "../../lib/api";
import { formatRelativeTime } from "../../lib/format";
import { toast } from "../../lib/toast";
import { useClientReport, useSaveClientReport, type ClientReportResponse } from "./api";

/** The addresses of the text box: one per line (commas and semicolons split too), blanks dropped. */
export function contactLines(text: string): string[] {
  return text
    .split(/[\n,;]+/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/**
 * "Client report" of one client: the outside contacts who receive the client's weekly report
 * (its digest and PDF, with the managing organization's branding), the switch, when it was last
 * sent and which addresses the mail relay refused last time.
 */
export function ClientReportDialog({ client, onClose }: { client: { id: string; name: string } | null; onClose: () => void }) {
  return (
    <Modal open={!!client} onOpenChange={(open) => !open && onClose()}>
      {client && (
        <>
          <ModalHeader icon={Mail} title="Client report" description={`Send ${client.name}'s weekly DMARC report, with its PDF, to people outside your organization.`} />
          <ReportForm client={client} onClose={onClose} />
        </>
      )}
    </Modal>
  );
}

function ReportForm({ client, onClose }: { client: { id: string; name: string }; onClose: () => void }) {
  const report = useClientReport(client.id);
  if (report.isPending) return <LoadingState text="Loading contacts..." />;
  if (report.isError) return <ErrorState error={report.error} onRetry={() => report.refetch()} />;
  return <Editor client={client} saved={report.data} onClose={onClose} />;
}

function Editor({ client, saved, onClose }: { client: { id: string; name: string }; saved: ClientReportResponse; onClose: () => void }) {
  const id = useId();
  const [text, setText] = useState(saved.contacts.join("\n"));
  const [enabled, setEnabled] = useState(saved.enabled);
  const [error, setError] = useState<string | null>(null);
  const save = useSaveClientReport(client.id);
  useEffect(() => setError(null), [text, enabled]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const contacts = contactLines(text);
    if (contacts.length > CLIENT_REPORT_MAX_CONTACTS) return setError(`Enter at most ${CLIENT_REPORT_MAX_CONTACTS} contact addresses (this list has ${contacts.length}).`);
    save.mutate(
      { contacts, enabled },
      {
        onSuccess: (answer) => {
          setText(answer.contacts.join("\n"));
          toast({ title: "Client report saved", description: answer.enabled ? `${client.name}'s weekly report goes to ${answer.contacts.length} ${answer.contacts.length === 1 ? "contact" : "contacts"}.` : `${client.name}'s weekly report is not sent to contacts.`, variant: "success" });
          onClose();
        },
        onError: (e) => setError(e instanceof ApiError ? (e.fields?.contacts ?? e.fields?.enabled ?? errorMessage(e)) : errorMessage(e)),
      },
    );
  };

  const errorId = `${id}-error`;
  return (
    <form className="flex flex-col gap-4" onSubmit={submit} noValidate>
      <div className="grid gap-1.5">
        <label htmlFor={`${id}-contacts`} className="text-sm font-medium">
          Contacts
        </label>
        <textarea
          id={`${id}-contacts`}
          className={`textarea textarea-bordered min-h-32 w-full font-mono text-sm ${error ? "textarea-error" : ""}`}
          placeholder={"office@client.example\nit@client.example"}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-invalid={!!error}
          aria-describedby={error ? errorId : `${id}-hint`}
          spellCheck={false}
          autoCapitalize="off"
        />
        {error ? (
          <p id={errorId} className="text-sm text-error" role="alert">
            {error}
          </p>
        ) : (
          <p id={`${id}-hint`} className="text-xs opacity-70">
            One email address per line, at most {CLIENT_REPORT_MAX_CONTACTS}. Each contact gets a mail of its own and sees no other address.
          </p>
        )}
      </div>
      <label className="flex cursor-pointer items-start gap-3">
        <input type="checkbox" className="toggle toggle-primary mt-0.5 shrink-0" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <span>
          <span className="block text-sm font-medium">Send the weekly report to these contacts</span>
          <span className="block text-xs opacity-70">On {client.name}'s digest day and hour, without links into the app; replies go to your support address.</span>
        </span>
      </label>
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="opacity-70">Last sent</dt>
        <dd>{saved.lastSentAt ? <time dateTime={saved.lastSentAt} title={new Date(saved.lastSentAt).toUTCString()}>{formatRelativeTime(saved.lastSentAt)}</time> : "Never"}</dd>
        {saved.lastFailures.length > 0 && (
          <>
            <dt className="opacity-70">Not delivered</dt>
            <dd className="min-w-0 text-error">
              <ul>
                {saved.lastFailures.map((f) => (
                  <li key={f.to} className="break-words" title={f.error}>
                    {f.to}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <button type="button" className="btn btn-ghost" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? "Saving..." : "Save"}
        </button>
      </div>
    </form>
  );
}
