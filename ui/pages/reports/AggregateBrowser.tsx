import { useInfiniteQuery } from "@tanstack/react-query";
import { Download, Search } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { throwIfResNotOk } from "../../lib/api";
import { formatCount } from "../../lib/format";
import { ErrorState, LoadingState } from "../../components/QueryStates";
import { useDomains } from "../domains/api";
import type { DmarcReportSummary } from "./api";
import { EmptyReports, ReportList } from "./ReportList";

/** Reports fetched per page. */
export const BROWSE_PAGE_SIZE = 25;

export interface ReportFilterValues {
  domain: string;
  reporter: string;
  from: string;
  to: string;
  failures: boolean;
  q: string;
}

export const NO_FILTERS: ReportFilterValues = { domain: "", reporter: "", from: "", to: "", failures: false, q: "" };

/** The list's query string for the filters (empty ones left out). */
export function filterParams(filters: ReportFilterValues): URLSearchParams {
  const params = new URLSearchParams({ limit: String(BROWSE_PAGE_SIZE) });
  for (const key of ["domain", "reporter", "from", "to", "q"] as const) if (filters[key].trim()) params.set(key, filters[key].trim());
  if (filters.failures) params.set("failures", "1");
  return params;
}

interface BrowsePage {
  items: DmarcReportSummary[];
  next: string | null;
}

/** GET /api/dmarc-reports with filters, page after page by the server's cursor. */
export function useReportPages(filters: ReportFilterValues) {
  const base = filterParams(filters);
  return useInfiniteQuery({
    queryKey: ["/api/dmarc-reports", "browse", base.toString()],
    initialPageParam: "",
    queryFn: async ({ pageParam }): Promise<BrowsePage> => {
      const params = new URLSearchParams(base);
      if (pageParam) params.set("cursor", pageParam);
      const res = await fetch(`/api/dmarc-reports?${params}`, { credentials: "include" });
      await throwIfResNotOk(res);
      return { items: (await res.json()) as DmarcReportSummary[], next: res.headers.get("x-next-cursor") };
    },
    getNextPageParam: (last) => last.next ?? undefined,
  });
}

/**
 * The aggregate reports, browsable through all of them: filters (domain, reporter, the days the
 * period begins in, only failing mail, a search in reporter and report id) and "Load more",
 * paged by the server; a CSV download of the last 30 days' records (of the chosen domain).
 */
export function AggregateBrowser({ onOpen }: { onOpen: (id: string) => void }) {
  const uid = useId();
  const domains = useDomains();
  const [filters, setFilters] = useState<ReportFilterValues>(NO_FILTERS);
  const [draft, setDraft] = useState<ReportFilterValues>(NO_FILTERS);
  const [problem, setProblem] = useState<string | null>(null);
  const pages = useReportPages(filters);
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);

  const apply = (next: ReportFilterValues) => {
    if (next.from && next.to && next.from > next.to) {
      setProblem("The start date must be on or before the end date.");
      return;
    }
    setProblem(null);
    setFilters(next);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply(draft);
  };
  const change = (patch: Partial<ReportFilterValues>, now = false) => {
    const next = { ...draft, ...patch };
    setDraft(next);
    if (now) apply(next);
  };
  const csv = `/api/records.csv?days=30${filters.domain ? `&domain=${encodeURIComponent(filters.domain)}` : ""}`;

  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-label="Reports">
      <div className="card-body gap-0 p-0">
        <div className="flex flex-wrap items-center justify-between gap-3 border-b border-base-300 px-4 py-3">
          <h2 className="font-semibold">Reports</h2>
          <a className="btn btn-outline btn-sm" href={csv} download data-csv-download>
            <Download className="h-4 w-4" aria-hidden /> Download CSV (30 days)
          </a>
        </div>
        <form className="grid gap-3 border-b border-base-300 px-4 py-3 sm:grid-cols-2 lg:grid-cols-3" onSubmit={submit} noValidate aria-label="Filter reports">
          <label className="grid gap-1 text-xs" htmlFor={`${uid}-q`}>
            Search reporter or report ID
            <input id={`${uid}-q`} className="input input-sm w-full" value={draft.q} maxLength={200} onChange={(e) => change({ q: e.target.value })} placeholder="e.g. google.com" />
          </label>
          <label className="grid gap-1 text-xs" htmlFor={`${uid}-domain`}>
            Domain
            <select id={`${uid}-domain`} className="select select-sm w-full" value={draft.domain} onChange={(e) => change({ domain: e.target.value }, true)}>
              <option value="">All domains</option>
              {(domains.data ?? []).map((d) => (
                <option key={d.id} value={d.name}>
                  {d.name}
                </option>
              ))}
            </select>
          </label>
          <label className="grid gap-1 text-xs" htmlFor={`${uid}-reporter`}>
            Reporter
            <input id={`${uid}-reporter`} className="input input-sm w-full" value={draft.reporter} maxLength={200} onChange={(e) => change({ reporter: e.target.value })} placeholder="e.g. Enterprise Outlook" />
          </label>
          <label className="grid gap-1 text-xs" htmlFor={`${uid}-from`}>
            Period from
            <input id={`${uid}-from`} type="date" className={`input input-sm w-full ${problem ? "input-error" : ""}`} value={draft.from} onChange={(e) => change({ from: e.target.value })} />
          </label>
          <label className="grid gap-1 text-xs" htmlFor={`${uid}-to`}>
            Period to
            <input id={`${uid}-to`} type="date" className={`input input-sm w-full ${problem ? "input-error" : ""}`} value={draft.to} onChange={(e) => change({ to: e.target.value })} />
          </label>
          <div className="flex flex-wrap items-end justify-between gap-2">
            <label className="flex cursor-pointer items-center gap-2 text-sm" htmlFor={`${uid}-failures`}>
              <input id={`${uid}-failures`} type="checkbox" className="checkbox checkbox-sm" checked={draft.failures} onChange={(e) => change({ failures: e.target.checked }, true)} />
              Only with failures
            </label>
            <div className="flex gap-2">
              {filtered ? (
                <button
                  type="button"
                  className="btn btn-ghost btn-sm"
                  onClick={() => {
                    setDraft(NO_FILTERS);
                    apply(NO_FILTERS);
                  }}
                >
                  Clear
                </button>
              ) : null}
              <button type="submit" className="btn btn-primary btn-sm">
                <Search className="h-4 w-4" aria-hidden /> Apply
              </button>
            </div>
          </div>
          {problem ? (
            <p role="alert" className="text-sm text-error sm:col-span-2 lg:col-span-3">
              {problem}
            </p>
          ) : null}
        </form>
        {pages.isPending ? (
          <LoadingState text="Loading reports..." />
        ) : pages.isError ? (
          <ErrorState error={pages.error} onRetry={() => pages.refetch()} />
        ) : items.length === 0 ? (
          filtered ? (
            <p className="p-10 text-center text-sm opacity-70">No reports match these filters.</p>
          ) : (
            <EmptyReports />
          )
        ) : (
          <>
            <ReportList reports={items} onOpen={onOpen} />
            <nav className="flex flex-wrap items-center justify-between gap-2 border-t border-base-300 px-4 py-3" aria-label="More reports">
              <p className="text-sm opacity-70" role="status">
                Showing {formatCount(items.length)} report{items.length === 1 ? "" : "s"}
                {pages.hasNextPage ? " (more to load)" : ""}
              </p>
              {pages.hasNextPage ? (
                <button type="button" className="btn btn-outline btn-sm" onClick={() => pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
                  {pages.isFetchingNextPage ? "Loading..." : "Load more"}
                </button>
              ) : null}
            </nav>
          </>
        )}
      </div>
    </section>
  );
}
