import { ShieldCheck } from "lucide-react";
import { formatCount } from "../../lib/format";
import { useTlsReport, useTlsReports, type TlsReportDetail, type TlsReportSummary } from "./api";
import { formatPeriod, ReportPager, usePage } from "./ReportList";
import { Field, formatUtcDateTime, ReportDetailCard, ReportListCard } from "./ReportTabs";
import { ScrollArea } from "../../components/ScrollArea";
import { reportSourceLabel } from "../../../src/features/reports/sources";

type TlsPolicy = TlsReportDetail["policies"][number];

/** RFC 8460 §4.3 result types in words an owner understands. */
const RESULT_TYPES: Record<string, string> = {
  "starttls-not-supported": "Your mail server did not offer encryption (STARTTLS).",
  "certificate-host-mismatch": "The certificate does not name your mail server.",
  "certificate-expired": "The certificate has expired.",
  "certificate-not-trusted": "The certificate is not signed by a trusted authority.",
  "validation-failure": "The connection could not be verified.",
  "tlsa-invalid": "The DANE (TLSA) record is invalid.",
  "dnssec-invalid": "DNSSEC validation failed.",
  "dane-required": "DANE was required but not usable.",
  "sts-policy-fetch-error": "The MTA-STS policy file could not be fetched.",
  "sts-policy-invalid": "The MTA-STS policy file is invalid.",
  "sts-webpki-invalid": "The MTA-STS policy's web certificate is invalid.",
};

export function EmptyTlsReports() {
  return (
    <div className="flex flex-col items-center gap-2 p-10 text-center">
      <ShieldCheck className="h-10 w-10 opacity-40" aria-hidden />
      <p className="font-medium">No TLS reports yet</p>
      <p className="max-w-xl text-sm opacity-70">
        Publish a TLS-RPT record at <span className="font-mono">_smtp._tls.</span>your domain (<span className="font-mono">v=TLSRPTv1; rua=mailto:</span>your report address) and sending servers will report
        daily whether they could deliver to you over an encrypted connection.
      </p>
    </div>
  );
}

const failedClass = (n: number) => (n > 0 ? "text-error font-semibold" : "opacity-70");

/** The organisation's SMTP TLS reports, newest period first; a row opens the report. */
export function TlsReportsList({ onOpen }: { onOpen: (id: string) => void }) {
  const reports = useTlsReports();
  return (
    <ReportListCard label="TLS reports" query={reports} empty={<EmptyTlsReports />}>
      {(items) => <TlsReportTable reports={items} onOpen={onOpen} />}
    </ReportListCard>
  );
}

export function TlsReportTable({ reports, onOpen }: { reports: TlsReportSummary[]; onOpen: (id: string) => void }) {
  const { slice, pager } = usePage(reports);
  return (
    <>
      <div className="border-b border-base-300 px-4 py-3">
        <h2 className="font-semibold">SMTP TLS Reports</h2>
      </div>
      <ScrollArea label="TLS reports table">
        <table className="table">
          <thead>
            <tr>
              <th>Reporter</th>
              <th className="hidden sm:table-cell">Policy Domain</th>
              <th className="hidden md:table-cell">Period</th>
              <th className="hidden text-right sm:table-cell">Successful</th>
              <th className="text-right">Failed</th>
            </tr>
          </thead>
          <tbody>
            {slice.map((r) => (
              <tr key={r.id} className="hover cursor-pointer" onClick={() => onOpen(r.id)}>
                <td>
                  <button type="button" className="link link-hover text-left font-medium" onClick={() => onOpen(r.id)}>
                    {r.reporterOrg}
                  </button>
                  <div className="text-xs opacity-60 sm:hidden">
                    <span className="font-mono">{r.policyDomain}</span> · {formatPeriod(r.dateBegin, r.dateEnd)}
                  </div>
                </td>
                <td className="hidden font-mono text-sm sm:table-cell">{r.policyDomain}</td>
                <td className="hidden md:table-cell">{formatPeriod(r.dateBegin, r.dateEnd)}</td>
                <td className="hidden text-right tabular-nums sm:table-cell">{formatCount(r.successfulSessions)}</td>
                <td className={`text-right tabular-nums ${failedClass(r.failedSessions)}`}>{formatCount(r.failedSessions)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      <ReportPager {...pager} />
    </>
  );
}

export function TlsReportView({ id, onBack }: { id: string; onBack: () => void }) {
  const report = useTlsReport(id);
  return (
    <ReportDetailCard backLabel="Back to TLS reports" onBack={onBack} query={report}>
      {(r) => <TlsReportBody report={r} />}
    </ReportDetailCard>
  );
}

function TlsReportBody({ report: r }: { report: TlsReportDetail }) {
  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <h2 className="text-xl font-semibold">
            {r.reporterOrg} · <span className="font-mono">{r.policyDomain}</span>
          </h2>
          <p className="break-words text-sm opacity-70">
            {formatPeriod(r.dateBegin, r.dateEnd)} · report id <span className="font-mono">{r.reportId}</span>
            {r.contactInfo ? ` · ${r.contactInfo}` : ""}
          </p>
        </div>
        <div className="flex gap-6 text-right">
          <div>
            <p className="text-xs uppercase opacity-60">Successful</p>
            <p className="text-2xl font-bold tabular-nums">{formatCount(r.successfulSessions)}</p>
          </div>
          <div>
            <p className="text-xs uppercase opacity-60">Failed</p>
            <p className={`text-2xl font-bold tabular-nums ${r.failedSessions > 0 ? "text-error" : ""}`}>{formatCount(r.failedSessions)}</p>
          </div>
        </div>
      </div>
      <p className="text-sm">
        {r.failedSessions > 0
          ? `${r.reporterOrg} could not deliver over an encrypted connection ${formatCount(r.failedSessions)} time${r.failedSessions === 1 ? "" : "s"}: the failures below say why and where.`
          : `Every connection ${r.reporterOrg} made to your mail servers in this period was encrypted.`}
      </p>
      {r.policies.map((p, i) => (
        <TlsPolicyCard key={`${p.policyDomain}-${i}`} policy={p} />
      ))}
      <p className="text-xs opacity-60">Received {formatUtcDateTime(r.processedAt)} · {reportSourceLabel(r.source)}{r.fileName ? ` (${r.fileName})` : ""}</p>
    </>
  );
}

function TlsPolicyCard({ policy: p }: { policy: TlsPolicy }) {
  return (
    <section className="rounded-box border border-base-300 p-3 sm:p-4" aria-label={`Policy ${p.policyType} for ${p.policyDomain}`}>
      <dl className="grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-4">
        <Field label="Policy">{p.policyType === "no-policy-found" ? "No policy found" : p.policyType.toUpperCase()}</Field>
        <Field label="Policy domain" mono>
          {p.policyDomain}
        </Field>
        <Field label="MX hosts" mono>
          {p.mxHost.join(", ")}
        </Field>
        <Field label="Sessions">
          {formatCount(p.successfulSessions)} successful, <span className={failedClass(p.failedSessions)}>{formatCount(p.failedSessions)} failed</span>
        </Field>
      </dl>
      {p.policyString.length > 0 && <pre className="mt-3 overflow-x-auto rounded-box bg-base-200 p-3 text-xs">{p.policyString.join("\n")}</pre>}
      {p.failureDetails.length === 0 ? (
        <p className="mt-3 text-sm opacity-70">No failures for this policy.</p>
      ) : (
        <ScrollArea label="Policy failures table" className="mt-3">
          <table className="table table-sm">
            <thead>
              <tr>
                <th>Failure</th>
                <th className="text-right">Sessions</th>
                <th className="hidden sm:table-cell">Sending server</th>
                <th className="hidden sm:table-cell">Your server</th>
              </tr>
            </thead>
            <tbody>
              {p.failureDetails.map((f, i) => (
                <tr key={i}>
                  <td className="sm:min-w-48">
                    <div className="font-mono text-xs font-semibold">{f.resultType}</div>
                    <div className="text-xs opacity-70">{RESULT_TYPES[f.resultType] ?? ""}</div>
                    {(f.failureReasonCode || f.additionalInformation) && <div className="break-all text-xs opacity-60">{[f.failureReasonCode, f.additionalInformation].filter(Boolean).join(" · ")}</div>}
                    <div className="break-all font-mono text-xs opacity-60 sm:hidden">
                      {f.sendingMtaIp ?? "unknown"} → {f.receivingMxHostname ?? f.receivingIp ?? "unknown"}
                    </div>
                  </td>
                  <td className="text-right tabular-nums">{formatCount(f.failedSessionCount)}</td>
                  <td className="hidden font-mono text-xs sm:table-cell">{f.sendingMtaIp ?? "unknown"}</td>
                  <td className="hidden font-mono text-xs sm:table-cell">
                    {f.receivingMxHostname ?? "unknown"}
                    {f.receivingIp ? <div className="opacity-60">{f.receivingIp}</div> : null}
                    {f.receivingMxHelo ? <div className="opacity-60">HELO {f.receivingMxHelo}</div> : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </section>
  );
}
