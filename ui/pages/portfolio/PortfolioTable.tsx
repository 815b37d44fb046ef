import { ArrowDown, ArrowUp, ArrowUpDown, Mail, Search } from "lucide-react";
import { useMemo, useState } from "react";
import { PLANS, isPlanKey } from "../../../src/lib/plans";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount, formatPercent, formatRelativeTime, passRateClass } from "../../lib/format";
import type { PortfolioClient } from "./api";
import { applyView, DEFAULT_VIEW, FIRST_DIRECTION, SORT_LABELS, sortBy, STATUS_FILTERS, type PortfolioView, type SortKey, type StatusFilter } from "./view";

const NUMERIC: SortKey[] = ["domains", "passRate7d", "passRate30d", "messages7d", "failingSources7d", "openTasks", "alerts7d"];

const planName = (key: string) => (isPlanKey(key) ? PLANS[key].name : key);

function PassRate({ value }: { value: number | null }) {
  if (value === null) return <span className="opacity-70">—</span>;
  return <span className={`font-medium ${passRateClass(value)}`}>{formatPercent(value)}</span>;
}

function PolicyMix({ mix }: { mix: PortfolioClient["policyMix"] }) {
  // domains not checked yet have no policy and are not counted
  const parts = (["reject", "quarantine", "none", "missing"] as const).filter((p) => mix[p] > 0).map((p) => `${mix[p]} ${p === "missing" ? "no DMARC" : p}`);
  if (!parts.length) return null;
  return <span className="block text-xs opacity-60">{parts.join(" · ")}</span>;
}

function LastReport({ at }: { at: string | null }) {
  if (!at) return <span className="opacity-70">None yet</span>;
  return <time dateTime={at} title={new Date(at).toUTCString()}>{formatRelativeTime(at)}</time>;
}

/** The portfolio's clients: searchable, filterable by status, sortable by every figure; a row opens its client or its client report. */
export function PortfolioTable({
  clients,
  onOpen,
  opening,
  onReport,
}: {
  clients: PortfolioClient[];
  onOpen: (client: PortfolioClient) => void;
  opening: string | null;
  onReport?: (client: PortfolioClient) => void;
}) {
  const [view, setView] = useState<PortfolioView>(DEFAULT_VIEW);
  const shown = useMemo(() => applyView(clients, view), [clients, view]);

  const header = (key: SortKey, className = "") => {
    const active = view.sort === key;
    const Icon = !active ? ArrowUpDown : view.direction === "asc" ? ArrowUp : ArrowDown;
    return (
      <th scope="col" className={`whitespace-normal align-bottom ${className}`} aria-sort={active ? (view.direction === "asc" ? "ascending" : "descending") : "none"}>
        <button type="button" className={`inline-flex items-end gap-1 font-semibold ${NUMERIC.includes(key) ? "justify-end text-right" : "text-left"}`} onClick={() => setView(sortBy(view, key))}>
          {SORT_LABELS[key]}
          <Icon className={`h-3 w-3 shrink-0 ${active ? "" : "opacity-40"}`} aria-hidden />
        </button>
      </th>
    );
  };

  const openButton = (c: PortfolioClient, className = "") => (
    <button type="button" className={`btn btn-sm btn-outline ${className}`} onClick={() => onOpen(c)} disabled={opening !== null} aria-label={`Open ${c.name}`}>
      {opening === c.id ? "Opening..." : "Open"}
    </button>
  );

  const reportButton = (c: PortfolioClient, className = "") =>
    onReport && (
      <button type="button" className={`btn btn-sm ${className}`} onClick={() => onReport(c)} aria-label={`Client report of ${c.name}`} title="Client report">
        <Mail className="h-4 w-4" aria-hidden />
        <span className="lg:sr-only">Client report</span>
      </button>
    );

  return (
    <section className="card min-w-0 border border-base-300 bg-base-100" aria-label="Clients">
      <div className="flex flex-col gap-3 border-b border-base-300 p-4 sm:flex-row sm:items-end">
        <label className="flex-1">
          <span className="mb-1 block text-sm font-medium">Search clients</span>
          <span className="input input-bordered flex w-full items-center gap-2">
            <Search className="h-4 w-4 opacity-50" aria-hidden />
            <input type="search" className="grow" placeholder="Client name" value={view.search} onChange={(e) => setView({ ...view, search: e.target.value })} />
          </span>
        </label>
        <label>
          <span className="mb-1 block text-sm font-medium">Status</span>
          <select className="select select-bordered w-full sm:w-48" value={view.status} onChange={(e) => setView({ ...view, status: e.target.value as StatusFilter })}>
            {Object.entries(STATUS_FILTERS).map(([key, label]) => (
              <option key={key} value={key}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {/* the table's headers sort on wide screens; phones get the same choice as a menu */}
        <label className="lg:hidden">
          <span className="mb-1 block text-sm font-medium">Sort by</span>
          <select className="select select-bordered w-full" value={view.sort} onChange={(e) => setView({ ...view, sort: e.target.value as SortKey, direction: FIRST_DIRECTION[e.target.value as SortKey] })}>
            {Object.entries(SORT_LABELS).map(([key, label]) => (
              <option key={key} value={key}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p className="px-4 pt-3 text-sm opacity-70" role="status">
        {shown.length === clients.length ? `${formatCount(clients.length)} clients` : `${formatCount(shown.length)} of ${formatCount(clients.length)} clients`}
      </p>
      {shown.length === 0 ? (
        <p className="p-8 text-center opacity-70">No client matches the search or filter.</p>
      ) : (
        <>
          {/* wide enough at 1024 px and up; a narrower window scrolls the table, never the page */}
          <div className="hidden overflow-x-auto lg:block">
            <table className="table table-sm [&_td]:px-1.5 [&_th]:px-1.5">
              <thead>
                <tr>
                  {header("name")}
                  {header("domains", "text-right")}
                  {header("worstStatus")}
                  {header("passRate7d", "text-right")}
                  {header("passRate30d", "text-right")}
                  {header("messages7d", "text-right")}
                  {header("failingSources7d", "text-right")}
                  {header("openTasks", "text-right")}
                  {header("alerts7d", "text-right")}
                  {header("lastReportAt")}
                  <th scope="col">
                    <span className="sr-only">Open</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((c) => (
                  <tr key={c.id} className="hover">
                    <th scope="row" className="max-w-56 font-normal">
                      <button type="button" className="link link-hover break-words text-left font-semibold" onClick={() => onOpen(c)} disabled={opening !== null}>
                        {c.name}
                      </button>
                      <span className="block text-xs opacity-60">{planName(c.plan)}</span>
                    </th>
                    <td className="text-right">
                      {formatCount(c.domains)}
                      <PolicyMix mix={c.policyMix} />
                    </td>
                    <td>{c.worstStatus ? <StatusBadge status={c.worstStatus} /> : <span className="opacity-70">No domains</span>}</td>
                    <td className="text-right">
                      <PassRate value={c.passRate7d} />
                    </td>
                    <td className="text-right">
                      <PassRate value={c.passRate30d} />
                    </td>
                    <td className="text-right">{formatCount(c.messages7d)}</td>
                    <td className={`text-right ${c.failingSources7d ? "font-medium text-error" : ""}`}>{formatCount(c.failingSources7d)}</td>
                    <td className="text-right">{formatCount(c.openTasks)}</td>
                    <td className="text-right">{formatCount(c.alerts7d)}</td>
                    <td className="whitespace-nowrap">
                      <LastReport at={c.lastReportAt} />
                    </td>
                    <td className="whitespace-nowrap text-right">
                      {reportButton(c, "btn-ghost btn-square mr-1")}
                      {openButton(c)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ul className="flex flex-col divide-y divide-base-300 lg:hidden" aria-label="Clients list">
            {shown.map((c) => (
              <li key={c.id} className="flex flex-col gap-2 p-4">
                <div className="flex items-start justify-between gap-2">
                  <div className="min-w-0">
                    <p className="break-words font-semibold">{c.name}</p>
                    <p className="text-xs opacity-60">
                      {planName(c.plan)} · {formatCount(c.domains)} {c.domains === 1 ? "domain" : "domains"}
                    </p>
                    <PolicyMix mix={c.policyMix} />
                  </div>
                  {c.worstStatus ? <StatusBadge status={c.worstStatus} /> : <span className="text-xs opacity-70">No domains</span>}
                </div>
                <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm">
                  <dt className="opacity-70">Pass rate 7d / 30d</dt>
                  <dd className="text-right">
                    <PassRate value={c.passRate7d} /> / <PassRate value={c.passRate30d} />
                  </dd>
                  <dt className="opacity-70">Messages 7d</dt>
                  <dd className="text-right">{formatCount(c.messages7d)}</dd>
                  <dt className="opacity-70">Failing sources 7d</dt>
                  <dd className="text-right">{formatCount(c.failingSources7d)}</dd>
                  <dt className="opacity-70">Open tasks</dt>
                  <dd className="text-right">{formatCount(c.openTasks)}</dd>
                  <dt className="opacity-70">Alerts 7d</dt>
                  <dd className="text-right">{formatCount(c.alerts7d)}</dd>
                  <dt className="opacity-70">Last report</dt>
                  <dd className="text-right">
                    <LastReport at={c.lastReportAt} />
                  </dd>
                </dl>
                <div className="flex gap-2">
                  {reportButton(c, "btn-outline flex-1")}
                  {openButton(c, "flex-1")}
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
