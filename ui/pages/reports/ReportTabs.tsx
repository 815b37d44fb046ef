import { ArrowLeft } from "lucide-react";
import { useRef, type KeyboardEvent, type ReactNode } from "react";
import { errorMessage } from "../../lib/api";
import { ErrorState, LoadingState } from "../../components/QueryStates";

export type ReportTab = "aggregate" | "senders" | "failure" | "tls";

export const REPORT_TABS: { key: ReportTab; label: string }[] = [
  { key: "aggregate", label: "Aggregate" },
  { key: "senders", label: "Senders" },
  { key: "failure", label: "Failure" },
  { key: "tls", label: "SMTP TLS" },
];

export const reportTabOf = (value: string | null): ReportTab => (value === "senders" || value === "failure" || value === "tls" ? value : "aggregate");

export const REPORTS_PANEL_ID = "reports-panel";
export const reportTabId = (key: ReportTab) => `reports-tab-${key}`;

/** The report kinds as ARIA tabs (arrow keys, Home and End move between them). */
export function ReportTabs({ selected, onSelect }: { selected: ReportTab; onSelect: (tab: ReportTab) => void }) {
  const refs = useRef<Partial<Record<ReportTab, HTMLButtonElement | null>>>({});
  const onKeyDown = (e: KeyboardEvent) => {
    const i = REPORT_TABS.findIndex((t) => t.key === selected);
    const next = e.key === "ArrowRight" ? (i + 1) % REPORT_TABS.length : e.key === "ArrowLeft" ? (i - 1 + REPORT_TABS.length) % REPORT_TABS.length : e.key === "Home" ? 0 : e.key === "End" ? REPORT_TABS.length - 1 : -1;
    if (next < 0) return;
    e.preventDefault();
    const key = REPORT_TABS[next]!.key;
    onSelect(key);
    refs.current[key]?.focus();
  };
  return (
    <div role="tablist" aria-label="Report types" className="tabs tabs-border flex-nowrap overflow-x-auto" onKeyDown={onKeyDown}>
      {REPORT_TABS.map(({ key, label }) => {
        const active = key === selected;
        return (
          <button
            key={key}
            ref={(el) => void (refs.current[key] = el)}
            type="button"
            role="tab"
            id={reportTabId(key)}
            aria-selected={active}
            aria-controls={REPORTS_PANEL_ID}
            tabIndex={active ? 0 : -1}
            className={`tab shrink-0 whitespace-nowrap ${active ? "tab-active font-semibold" : ""}`}
            onClick={() => onSelect(key)}
          >
            {label}
          </button>
        );
      })}
    </div>
  );
}

/** A card around a list query: loading, error with Try Again, empty state, or the list. */
export function ReportListCard<T>({
  label,
  query,
  empty,
  children,
}: {
  label: string;
  query: { isPending: boolean; isError: boolean; error: unknown; data: T[] | undefined; refetch: () => unknown };
  empty: ReactNode;
  children: (items: T[]) => ReactNode;
}) {
  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-label={label}>
      <div className="card-body p-0">
        {query.isPending ? (
          <LoadingState text="Loading reports..." />
        ) : query.isError || !query.data ? (
          <ErrorState error={query.error} onRetry={() => query.refetch()} />
        ) : query.data.length === 0 ? (
          empty
        ) : (
          children(query.data)
        )}
      </div>
    </section>
  );
}

/** A detail card with a back button: loading, error, or the body. */
export function ReportDetailCard<T>({ backLabel, onBack, query, children }: { backLabel: string; onBack: () => void; query: { isPending: boolean; isError: boolean; error: unknown; data: T | undefined }; children: (data: T) => ReactNode }) {
  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm">
      <div className="card-body min-w-0 gap-4 p-4 sm:p-6">
        <button type="button" className="btn btn-ghost btn-sm self-start" onClick={onBack}>
          <ArrowLeft className="h-4 w-4" aria-hidden /> {backLabel}
        </button>
        {query.isPending ? (
          <p role="status" className="opacity-70">
            Loading report...
          </p>
        ) : query.isError || query.data === undefined ? (
          <div role="alert">
            <p className="font-medium text-error">Something went wrong</p>
            <p className="text-sm opacity-70">{errorMessage(query.error)}</p>
          </div>
        ) : (
          children(query.data)
        )}
      </div>
    </section>
  );
}

/** "Jan 2, 2024" */
export const formatUtcDate = (value: string) => new Date(value).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });

/** "09:59 UTC" */
export const formatUtcTime = (value: string) => `${new Date(value).toLocaleTimeString("en-US", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "UTC" })} UTC`;

/** "Jan 2, 2024, 09:59 UTC" */
export function formatUtcDateTime(value: string): string {
  return `${new Date(value).toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", hour: "2-digit", minute: "2-digit", hour12: false, timeZone: "UTC" })} UTC`;
}

/** A label/value pair of a detail view; nothing when the value is empty. */
export function Field({ label, children, mono = false }: { label: string; children: ReactNode; mono?: boolean }) {
  if (children === null || children === undefined || children === "") return null;
  return (
    <div className="min-w-0">
      <dt className="text-xs uppercase opacity-60">{label}</dt>
      <dd className={`break-words ${mono ? "font-mono text-sm" : ""}`}>{children}</dd>
    </div>
  );
}
