import { MailWarning } from "lucide-react";
import { useFailureReport, useFailureReports, type FailureReportDetail, type FailureReportSummary } from "./api";
import { ReportPager, usePage } from "./ReportList";
import { Field, formatUtcDate, formatUtcDateTime, formatUtcTime, ReportDetailCard, ReportListCard } from "./ReportTabs";
import { ScrollArea } from "../../components/ScrollArea";
import { reportSourceLabel } from "../../../src/features/reports/sources";

export function EmptyFailureReports() {
  return (
    <div className="flex flex-col items-center gap-2 p-10 text-center">
      <MailWarning className="h-10 w-10 opacity-40" aria-hidden />
      <p className="font-medium">No failure reports yet</p>
      <p className="max-w-xl text-sm opacity-70">
        Add a <span className="font-mono">ruf=mailto:</span> address (your report address from Settings) to your domain's DMARC record, and receivers that send failure reports will send one for each message that fails DMARC.
      </p>
    </div>
  );
}

const failureBadge = (kind: string | null) => <span className="badge badge-sm badge-error badge-soft whitespace-nowrap">{kind ? kind.toUpperCase() : "unknown"}</span>;

/** The organisation's failure reports, newest first; a row opens the report. */
export function FailureReportsList({ onOpen }: { onOpen: (id: string) => void }) {
  const reports = useFailureReports();
  return (
    <ReportListCard label="Failure reports" query={reports} empty={<EmptyFailureReports />}>
      {(items) => <FailureReportTable reports={items} onOpen={onOpen} />}
    </ReportListCard>
  );
}

export function FailureReportTable({ reports, onOpen }: { reports: FailureReportSummary[]; onOpen: (id: string) => void }) {
  const { slice, pager } = usePage(reports);
  return (
    <>
      <div className="border-b border-base-300 px-4 py-3">
        <h2 className="font-semibold">Failure Reports</h2>
      </div>
      <ScrollArea label="Failure reports table">
        <table className="table">
          <thead>
            <tr>
              <th>Message</th>
              <th className="hidden sm:table-cell">Domain</th>
              <th className="hidden md:table-cell">Source</th>
              <th className="hidden sm:table-cell">Failed</th>
              <th className="hidden xl:table-cell">Reporter</th>
              <th className="hidden sm:table-cell">Arrived</th>
            </tr>
          </thead>
          <tbody>
            {slice.map((r) => (
              <tr key={r.id} className="hover cursor-pointer" onClick={() => onOpen(r.id)}>
                <td className="w-full max-w-0 sm:w-auto sm:max-w-72">
                  <button type="button" className="link link-hover block max-w-full truncate text-left font-medium" onClick={() => onOpen(r.id)}>
                    {r.originalSubject || "(no subject)"}
                  </button>
                  <div className="truncate text-xs opacity-60">{r.originalFrom ?? "unknown sender"}</div>
                  <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs sm:hidden">
                    {failureBadge(r.authFailure)}
                    <span className="font-mono opacity-60">{r.domain}</span>
                    {r.arrivalDate && <span className="opacity-60">{formatUtcDate(r.arrivalDate)}</span>}
                  </div>
                </td>
                <td className="hidden font-mono text-sm sm:table-cell">{r.domain}</td>
                <td className="hidden md:table-cell">
                  <div className="font-mono text-xs">{r.sourceIp ?? "unknown"}</div>
                  {r.country && <div className="text-xs opacity-60">{r.country}</div>}
                </td>
                <td className="hidden sm:table-cell">{failureBadge(r.authFailure)}</td>
                <td className="hidden xl:table-cell text-sm">{r.reporterOrg}</td>
                <td className="hidden whitespace-nowrap text-sm sm:table-cell">
                  {r.arrivalDate ? (
                    <>
                      <div>{formatUtcDate(r.arrivalDate)}</div>
                      <div className="text-xs opacity-60">{formatUtcTime(r.arrivalDate)}</div>
                    </>
                  ) : (
                    <span className="opacity-60">unknown</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      <ReportPager {...pager} />
    </>
  );
}

export function FailureReportView({ id, onBack }: { id: string; onBack: () => void }) {
  const report = useFailureReport(id);
  return (
    <ReportDetailCard backLabel="Back to failure reports" onBack={onBack} query={report}>
      {(r) => <FailureReportBody report={r} />}
    </ReportDetailCard>
  );
}

function FailureReportBody({ report: r }: { report: FailureReportDetail }) {
  return (
    <>
      <div className="min-w-0">
        <h2 className="break-words text-xl font-semibold">{r.originalSubject || "(no subject)"}</h2>
        <p className="break-words text-sm opacity-70">
          From {r.originalFrom ?? "an unknown sender"} · <span className="font-mono">{r.domain}</span>
        </p>
      </div>
      <p className="text-sm">
        {r.reporterOrg} received a message claiming to be from <span className="font-mono">{r.domain}</span> that failed {r.authFailure ? r.authFailure.toUpperCase() : "authentication"}. If you know the
        sender, authorize it in your SPF record or have it sign with DKIM for your domain; if you don't, someone is likely spoofing your domain.
      </p>
      {r.plainText && (
        <p className="alert alert-warning alert-soft text-sm" role="note">
          This notice came as plain text without the standard report part, so some details may be missing.
        </p>
      )}
      <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-3">
        <Field label="Failed">{failureBadge(r.authFailure)}</Field>
        <Field label="Arrived">{r.arrivalDate ? formatUtcDateTime(r.arrivalDate) : "unknown"}</Field>
        <Field label="Source IP" mono>
          {r.sourceIp ? `${r.sourceIp}${r.country ? ` (${r.country})` : ""}` : "unknown"}
        </Field>
        <Field label="Reverse DNS" mono>
          {r.ptr}
        </Field>
        <Field label="Reporter">{r.reporterOrg}</Field>
        <Field label="Feedback type">{r.feedbackType}</Field>
        <Field label="Identity alignment">{r.identityAlignment}</Field>
        <Field label="Delivery result">{r.deliveryResult}</Field>
        <Field label="DKIM domain" mono>
          {r.dkimDomain}
        </Field>
        <Field label="DKIM selector" mono>
          {r.dkimSelector}
        </Field>
        <Field label="SPF DNS" mono>
          {r.spfDns}
        </Field>
        <Field label="Envelope from" mono>
          {r.originalMailFrom}
        </Field>
        <Field label="Envelope to" mono>
          {r.originalRcptTo}
        </Field>
        <Field label="Message ID" mono>
          {r.originalMessageId}
        </Field>
        <Field label="Report ID" mono>
          {r.reportId}
        </Field>
        <Field label="Received">
          {formatUtcDateTime(r.processedAt)} · {reportSourceLabel(r.source)}
          {r.fileName ? ` (${r.fileName})` : ""}
        </Field>
      </dl>
      {r.authenticationResults && (
        <div className="min-w-0">
          <h3 className="mb-1 text-sm font-semibold">Authentication results</h3>
          <pre className="overflow-x-auto rounded-box bg-base-200 p-3 text-xs whitespace-pre-wrap break-all">{r.authenticationResults}</pre>
        </div>
      )}
      <div className="min-w-0">
        <h3 className="mb-1 text-sm font-semibold">Original headers</h3>
        {r.originalHeaders ? (
          <pre className="max-h-96 overflow-auto rounded-box bg-base-200 p-3 text-xs" aria-label="Original headers">
            {r.originalHeaders}
          </pre>
        ) : (
          <p className="text-sm opacity-70">The reporter did not include the original headers.</p>
        )}
      </div>
    </>
  );
}
