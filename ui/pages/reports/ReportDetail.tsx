import { ArrowLeft } from "lucide-react";
import { errorMessage } from "../../lib/api";
import { formatCount, passRateClass } from "../../lib/format";
import { useReport, type DmarcReportDetail } from "./api";
import { formatPeriod } from "./ReportList";
import { ScrollArea } from "../../components/ScrollArea";

type RecordView = DmarcReportDetail["records"][number];

const regionNames = new Intl.DisplayNames(["en"], { type: "region" });

/** "City, Country" when the geolocation database knows the city (--geoip-db), else the country. */
function placeOf(r: RecordView): string {
  let country: string | null = null;
  if (r.country) {
    try {
      country = regionNames.of(r.country) ?? r.country;
    } catch {
      country = r.country;
    }
  }
  return [r.city, country].filter(Boolean).join(", ") || "Unknown country";
}

const verdictClass = (v: string | null) => (v === "pass" ? "badge-success" : v === "fail" ? "badge-error" : "badge-ghost");

function Verdict({ value }: { value: string | null }) {
  return <span className={`badge badge-sm ${verdictClass(value)}`}>{value ?? "n/a"}</span>;
}

/** One aggregate report: its policy and every record with alignment and raw results. */
export function ReportDetail({ id, onBack }: { id: string; onBack: () => void }) {
  const report = useReport(id);
  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm">
      <div className="card-body gap-4 p-4 sm:p-6">
        <button type="button" className="btn btn-ghost btn-sm self-start" onClick={onBack}>
          <ArrowLeft className="h-4 w-4" aria-hidden /> Back to reports
        </button>
        {report.isPending ? (
          <p role="status" className="opacity-70">
            Loading report...
          </p>
        ) : report.isError ? (
          <div role="alert">
            <p className="font-medium text-error">Something went wrong</p>
            <p className="text-sm opacity-70">{errorMessage(report.error)}</p>
          </div>
        ) : (
          <ReportBody report={report.data} />
        )}
      </div>
    </section>
  );
}

function ReportBody({ report }: { report: DmarcReportDetail }) {
  const p = report.policy;
  return (
    <>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h2 className="text-xl font-semibold">
            {report.orgName} · <span className="font-mono">{report.domain}</span>
          </h2>
          <p className="text-sm opacity-70">
            {formatPeriod(report.dateBegin, report.dateEnd)} · report id <span className="font-mono">{report.reportId}</span>
            {report.reporterEmail ? ` · ${report.reporterEmail}` : ""}
          </p>
        </div>
        <div className="flex gap-6 text-right">
          <div>
            <p className="text-xs uppercase opacity-60">Messages</p>
            <p className="text-2xl font-bold tabular-nums">{formatCount(report.totalMessages)}</p>
          </div>
          <div>
            <p className="text-xs uppercase opacity-60">Pass Rate</p>
            <p className={`text-2xl font-bold tabular-nums ${passRateClass(report.passRate)}`}>{report.passRate.toFixed(1)}%</p>
          </div>
        </div>
      </div>
      <p className="text-sm">
        <span className="opacity-60">Published policy:</span>{" "}
        <span className="font-mono">
          p={p.p ?? "?"}
          {p.sp ? `; sp=${p.sp}` : ""}
          {p.np ? `; np=${p.np}` : ""}
          {p.adkim ? `; adkim=${p.adkim}` : ""}
          {p.aspf ? `; aspf=${p.aspf}` : ""}
          {p.pct !== null ? `; pct=${p.pct}` : ""}
          {p.testing ? `; t=${p.testing}` : ""}
        </span>
      </p>
      {report.reporterErrors.length > 0 && <p className="text-sm text-warning">Reporter notes: {report.reporterErrors.join("; ")}</p>}
      <ScrollArea label="Report records table">
        <table className="table table-sm">
          <thead>
            <tr>
              <th>Source</th>
              <th className="text-right">Messages</th>
              <th>DMARC</th>
              <th>Sender</th>
              <th>DKIM</th>
              <th>SPF</th>
              <th>Disposition</th>
            </tr>
          </thead>
          <tbody>
            {report.records.map((r, i) => (
              <RecordRow key={`${r.sourceIp}-${i}`} record={r} />
            ))}
          </tbody>
        </table>
      </ScrollArea>
      {report.recordsTruncated && <p className="text-sm opacity-70">Showing the {formatCount(report.records.length)} largest of {formatCount(report.recordCount)} records.</p>}
      <p className="text-xs opacity-60">
        <a href="https://db-ip.com" target="_blank" rel="noreferrer" className="link">
          IP Geolocation by DB-IP
        </a>
      </p>
    </>
  );
}

function RecordRow({ record: r }: { record: RecordView }) {
  return (
    <tr>
      <td>
        <div className="font-mono text-xs">{r.sourceIp}</div>
        <div className="text-xs opacity-60" title={r.country ?? undefined}>
          {placeOf(r)}
        </div>
      </td>
      <td className="text-right tabular-nums">{formatCount(r.count)}</td>
      <td>
        <span className={`badge badge-sm ${r.dmarcPass ? "badge-success" : "badge-error"}`}>{r.dmarcPass ? "pass" : "fail"}</span>
      </td>
      <td>
        <div className="max-w-48 text-sm">{r.service ?? r.baseDomain ?? "Unknown sender"}</div>
        <div className="max-w-48 truncate font-mono text-xs opacity-60" title={r.ptr ?? undefined}>
          {r.ptr ?? "no reverse DNS"}
        </div>
      </td>
      <td>
        <Verdict value={r.dkimAligned} />
        {r.dkimResults.map((d, i) => (
          <div key={i} className="text-xs opacity-70">
            {d.domain}
            {d.selector ? ` (${d.selector})` : ""}: {d.result}
          </div>
        ))}
      </td>
      <td>
        <Verdict value={r.spfAligned} />
        {r.spfResults.map((s, i) => (
          <div key={i} className="text-xs opacity-70">
            {s.domain}
            {s.scope ? ` (${s.scope})` : ""}: {s.result}
          </div>
        ))}
      </td>
      <td>
        {r.disposition}
        {r.reasons.length > 0 && <div className="text-xs opacity-60">{r.reasons.map((x) => x.type).join(", ")}</div>}
      </td>
    </tr>
  );
}
