import { ChevronLeft, ChevronRight, FileText } from "lucide-react";
import { useState } from "react";
import { formatCount, formatRelativeTime, passRateClass } from "../../lib/format";
import type { DmarcReportSummary } from "./api";
import { ScrollArea } from "../../components/ScrollArea";

/** Reports shown per page of the list. */
export const REPORTS_PAGE_SIZE = 25;

export const formatPeriod = (begin: string, end: string) => {
  const opts: Intl.DateTimeFormatOptions = { month: "short", day: "numeric", timeZone: "UTC" };
  const b = new Date(begin).toLocaleDateString("en-US", opts);
  const e = new Date(end).toLocaleDateString("en-US", opts);
  return b === e ? b : `${b} – ${e}`;
};

export function EmptyReports() {
  return (
    <div className="flex flex-col items-center gap-2 p-10 text-center">
      <FileText className="h-10 w-10 opacity-40" aria-hidden />
      <p className="font-medium">No reports available</p>
      <p className="text-sm opacity-70">Upload a report above, or publish your report address in your domains' DMARC records.</p>
    </div>
  );
}

/** A page of `items` (pages of REPORTS_PAGE_SIZE), for lists paged in the browser. */
export function usePage<T>(items: T[]) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / REPORTS_PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const first = current * REPORTS_PAGE_SIZE;
  const slice = items.slice(first, first + REPORTS_PAGE_SIZE);
  return { slice, pager: { first, shown: slice.length, total: items.length, current, pages, onPage: setPage } };
}

/** "Showing 1–25 of 304" with Previous/Next. */
export function ReportPager({ first, shown, total, current, pages, onPage }: { first: number; shown: number; total: number; current: number; pages: number; onPage: (page: number) => void }) {
  return (
    <nav className="flex flex-wrap items-center justify-between gap-2 border-t border-base-300 px-4 py-3" aria-label="Report pages">
      <p className="text-sm opacity-70" role="status">
        Showing {formatCount(first + 1)}–{formatCount(first + shown)} of {formatCount(total)}
      </p>
      {pages > 1 && (
        <div className="join">
          <button type="button" className="btn btn-sm join-item" disabled={current === 0} onClick={() => onPage(current - 1)}>
            <ChevronLeft className="h-4 w-4" aria-hidden /> Previous
          </button>
          <button type="button" className="btn btn-sm join-item" disabled={current >= pages - 1} onClick={() => onPage(current + 1)}>
            Next <ChevronRight className="h-4 w-4" aria-hidden />
          </button>
        </div>
      )}
    </nav>
  );
}

/** The organisation's aggregate reports, newest first; a row opens the report. */
export function ReportList({ reports, onOpen }: { reports: DmarcReportSummary[]; onOpen: (id: string) => void }) {
  return (
    <ScrollArea label="Reports table">
      <table className="table">
        <thead>
          <tr>
            <th>Reporter</th>
            <th className="hidden sm:table-cell">Domain</th>
            <th className="hidden md:table-cell">Period</th>
            <th className="hidden text-right sm:table-cell">Messages</th>
            <th className="text-right">Pass Rate</th>
            <th className="hidden sm:table-cell">Processed</th>
          </tr>
        </thead>
        <tbody>
          {reports.map((r) => (
            <tr key={r.id} className="hover cursor-pointer" onClick={() => onOpen(r.id)}>
              <td>
                <button type="button" className="link link-hover text-left font-medium" onClick={() => onOpen(r.id)}>
                  {r.orgName}
                </button>
                <div className="font-mono text-xs opacity-60 sm:hidden">{r.domain}</div>
              </td>
              <td className="hidden font-mono text-sm sm:table-cell">{r.domain}</td>
              <td className="hidden md:table-cell">{formatPeriod(r.dateBegin, r.dateEnd)}</td>
              <td className="hidden text-right tabular-nums sm:table-cell">{formatCount(r.totalMessages)}</td>
              <td className={`text-right font-semibold tabular-nums ${passRateClass(r.passRate)}`}>{r.passRate.toFixed(1)}%</td>
              <td className="hidden sm:table-cell opacity-70">{formatRelativeTime(r.processedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}
