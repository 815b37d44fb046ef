import { useSearchParams } from "react-router";
import { errorMessage } from "../../lib/api";
import { useReports } from "./api";
import { ReportDetail } from "./ReportDetail";
import { EmptyReports, ReportBrowser } from "./ReportList";
import { ReportUploader } from "./ReportUploader";

/** DMARC Reports (/app/reports): upload reports, list them, open one (?report=<id>). */
export default function ReportsPage() {
  const [params, setParams] = useSearchParams();
  const open = params.get("report");
  const reports = useReports();
  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-6">
      <div>
        <h1 className="text-3xl font-bold">DMARC Reports</h1>
        <p className="mt-1 opacity-70">Aggregate reports from mailbox providers: who sends mail as your domains, and whether it passes DMARC.</p>
      </div>
      {open ? (
        <ReportDetail id={open} onBack={() => setParams({})} />
      ) : (
        <>
          <ReportUploader />
          <section className="card border border-base-300 bg-base-100 shadow-sm" aria-label="Reports">
            <div className="card-body p-0">
              {reports.isPending ? (
                <p className="p-8 text-center opacity-70" role="status">
                  Loading reports...
                </p>
              ) : reports.isError ? (
                <div className="p-8 text-center" role="alert">
                  <p className="font-medium text-error">Something went wrong</p>
                  <p className="mt-1 text-sm opacity-70">{errorMessage(reports.error)}</p>
                  <button type="button" className="btn btn-sm btn-outline mt-3" onClick={() => reports.refetch()}>
                    Try Again
                  </button>
                </div>
              ) : reports.data.length === 0 ? (
                <EmptyReports />
              ) : (
                <ReportBrowser reports={reports.data} onOpen={(id) => setParams({ report: id })} />
              )}
            </div>
          </section>
        </>
      )}
    </div>
  );
}
