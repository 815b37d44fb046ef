import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import type { TrendSeries } from "../../src/lib/trends";
import { errorMessage } from "../lib/api";
import { LazyTrendChart } from "./charts/lazy";
import { Panel } from "./Panel";
import { RangePicker, type DayRange } from "./RangePicker";

/** The query string of `/api/trends` (and `/api/records.csv`) for a range and an optional domain. */
export function trendsQuery(range: DayRange, domain?: string | null): string {
  const params = new URLSearchParams();
  if (range.kind === "last") params.set("days", String(range.days));
  else {
    params.set("from", range.from);
    params.set("to", range.to);
  }
  if (domain) params.set("domain", domain);
  return params.toString();
}

/** GET /api/trends for a range and an optional domain (TanStack Query, like the other dashboard sections). */
export function useTrends(range: DayRange, domain?: string | null) {
  return useQuery<TrendSeries>({ queryKey: [`/api/trends?${trendsQuery(range, domain)}`] });
}

export interface TrendPanelProps {
  /** a fixed domain (the domain page), or null for the whole organisation */
  domain?: string | null;
  /** domains to filter by (the dashboard); no filter when absent */
  domains?: string[];
  title?: string;
  /** what "today" is for the presets (tests) */
  now?: Date;
}

/**
 * Message volume (passed vs failed, stacked) and DMARC pass rate per UTC day, over 7 / 30 / 90
 * days or a custom range, for the organisation or one domain; read from `/api/trends`.
 */
export function TrendPanel({ domain = null, domains, title = "Message Volume & DMARC Pass Rate", now }: TrendPanelProps) {
  const id = useId();
  const [range, setRange] = useState<DayRange>({ kind: "last", days: 30 });
  const [filter, setFilter] = useState<string>("");
  const selected = domain ?? (filter || null);
  const trends = useTrends(range, selected);
  return (
    <Panel title={title}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <RangePicker value={range} onChange={setRange} now={now} label="Chart range" />
        {domains && domains.length > 0 && !domain ? (
          <label className="flex items-center gap-2 text-sm" htmlFor={`${id}-domain`}>
            <span className="opacity-70">Domain</span>
            <select id={`${id}-domain`} aria-label="Filter the chart by domain" className="select select-sm w-48 max-w-full" value={filter} onChange={(e) => setFilter(e.target.value)}>
              <option value="">All domains</option>
              {domains.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
      </div>
      {trends.isPending ? (
        <div className="skeleton h-[330px] w-full" role="status" aria-label="Loading chart" />
      ) : trends.isError ? (
        <div role="alert" className="flex flex-wrap items-center gap-3 py-6 text-sm">
          <span className="text-error">The chart could not be loaded: {errorMessage(trends.error)}</span>
          <button type="button" className="btn btn-outline btn-sm" onClick={() => trends.refetch()}>
            Try Again
          </button>
        </div>
      ) : (
        <div data-trend-days={trends.data.days.length} data-trend-messages={trends.data.days.reduce((n, d) => n + d.messages, 0)}>
          <LazyTrendChart series={trends.data} title={selected ? `Message volume and DMARC pass rate of ${selected}` : undefined} />
        </div>
      )}
    </Panel>
  );
}
