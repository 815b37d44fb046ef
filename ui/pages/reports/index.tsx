import { useSearchParams } from "react-router";
import { AggregateBrowser } from "./AggregateBrowser";
import { FailureReportsList, FailureReportView } from "./FailureReports";
import { ReportDetail } from "./ReportDetail";
import { ReportTabs, REPORTS_PANEL_ID, reportTabId, reportTabOf, type ReportTab } from "./ReportTabs";
import { ReportUploader } from "./ReportUploader";
import { SendersView } from "./Senders";
import { TlsReportsList, TlsReportView } from "./TlsReports";

const SUBTITLES: Record<ReportTab, string> = {
  aggregate: "Aggregate reports from mailbox providers: who sends mail as your domains, and whether it passes DMARC.",
  senders: "Senders: the services and servers that send mail as your domains, and whether each is authenticated.",
  failure: "Failure reports: single messages that failed DMARC, with the headers the receiver saw.",
  tls: "SMTP TLS reports: whether other mail servers could reach yours over an encrypted connection.",
};

/**
 * DMARC Reports (/app/reports): upload reports; tabs Aggregate, Senders (?tab=senders, who sends
 * as the organisation), Failure (?tab=failure) and SMTP TLS (?tab=tls), each report list opening
 * one report (?report=<id>).
 */
export default function ReportsPage() {
  const [params, setParams] = useSearchParams();
  const tab = reportTabOf(params.get("tab"));
  const open = params.get("report");
  const show = (next: ReportTab, report?: string) => setParams({ ...(next === "aggregate" ? {} : { tab: next }), ...(report ? { report } : {}) });
  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-6">
      <div>
        <h1 className="text-3xl font-bold">DMARC Reports</h1>
        <p className="mt-1 opacity-70">{SUBTITLES[tab]}</p>
      </div>
      <ReportTabs selected={tab} onSelect={(next) => show(next)} />
      <div id={REPORTS_PANEL_ID} role="tabpanel" aria-labelledby={reportTabId(tab)} className="-mt-2 flex flex-col gap-6">
        {!open && tab !== "senders" && <ReportUploader />}
        {tab === "senders" ? (
          <SendersView />
        ) : tab === "aggregate" ? (
          open ? (
            <ReportDetail id={open} onBack={() => show("aggregate")} />
          ) : (
            <AggregateReports onOpen={(id) => show("aggregate", id)} />
          )
        ) : tab === "failure" ? (
          open ? (
            <FailureReportView id={open} onBack={() => show("failure")} />
          ) : (
            <FailureReportsList onOpen={(id) => show("failure", id)} />
          )
        ) : open ? (
          <TlsReportView id={open} onBack={() => show("tls")} />
        ) : (
          <TlsReportsList onOpen={(id) => show("tls", id)} />
        )}
      </div>
    </div>
  );
}

function AggregateReports({ onOpen }: { onOpen: (id: string) => void }) {
  return <AggregateBrowser onOpen={onOpen} />;
}
