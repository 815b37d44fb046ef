import { ArrowDown, ArrowUp, ArrowUpDown, ShieldCheck } from "lucide-react";
import { useMemo, useRef, useState, type ReactNode } from "react";
import { formatCount, formatRelativeTime } from "../lib/format";
import { useOverflows } from "./ScrollArea";
import { Tooltip } from "./TooltipProvider";

/** SPEC §3 IP threat. */
export interface IpThreat {
  ipAddress: string;
  country: string;
  city: string;
  attemptCount: number;
  threatLevel: "high" | "medium" | "low";
  lastSeenAt: Date | string;
  /** the address's reverse DNS name and the sending service it names, when known (the API gives them; the demo has none) */
  ptr?: string | null;
  service?: string | null;
}

export type ThreatSortKey = "attemptCount" | "threatLevel" | "country";
export type SortDirection = "asc" | "desc";

const LEVEL_RANK: Record<IpThreat["threatLevel"], number> = { low: 1, medium: 2, high: 3 };
/** The direction a column starts in when first chosen: biggest or worst first, countries A to Z. */
const FIRST_DIRECTION: Record<ThreatSortKey, SortDirection> = { attemptCount: "desc", threatLevel: "desc", country: "asc" };
const COLUMN_LABELS: Record<ThreatSortKey, string> = { attemptCount: "Attempts", threatLevel: "Threat level", country: "Country" };

/** SPEC §2 threat list order; ties keep the most attempts first. Returns a new array. */
export function sortThreats<T extends IpThreat>(threats: readonly T[], key: ThreatSortKey, direction: SortDirection): T[] {
  const sign = direction === "asc" ? 1 : -1;
  const compare = (a: T, b: T): number => {
    switch (key) {
      case "attemptCount":
        return a.attemptCount - b.attemptCount;
      case "threatLevel":
        return LEVEL_RANK[a.threatLevel] - LEVEL_RANK[b.threatLevel];
      case "country":
        return a.country.localeCompare(b.country);
    }
  };
  return [...threats].sort((a, b) => sign * compare(a, b) || b.attemptCount - a.attemptCount);
}

/** The next sort state after a click on a column: the same column toggles direction. */
export function nextSort(current: { key: ThreatSortKey; direction: SortDirection }, clicked: ThreatSortKey) {
  if (current.key === clicked) return { key: clicked, direction: current.direction === "asc" ? "desc" : "asc" } as const;
  return { key: clicked, direction: FIRST_DIRECTION[clicked] } as const;
}

const LEVEL_LABEL: Record<IpThreat["threatLevel"], string> = { high: "High", medium: "Medium", low: "Low" };
const LEVEL_BADGE: Record<IpThreat["threatLevel"], string> = { high: "badge-error", medium: "badge-warning", low: "badge-info" };

/**
 * The threat activity list of SPEC §2: last 24 hours, sortable by attempts (default, most
 * first), threat level or country; clicking the sorted column again reverses it. Scrolls
 * within max-h-96.
 */
export function ThreatList({ threats, title = "Threat Activity", now, empty }: { threats: IpThreat[]; title?: string; now?: Date; /** shown instead of SPEC's "No Active Threats" when there is nothing to judge yet (no domains or no reports) */ empty?: ReactNode }) {
  const [sort, setSort] = useState<{ key: ThreatSortKey; direction: SortDirection }>({ key: "attemptCount", direction: "desc" });
  // a list taller than max-h-96 scrolls: keyboard users reach it with Tab and scroll it with the arrows
  const list = useRef<HTMLUListElement>(null);
  const scrolls = useOverflows(list);
  const sorted = useMemo(() => sortThreats(threats, sort.key, sort.direction), [threats, sort]);

  return (
    <section className="card min-w-0 border border-base-300 bg-base-100" aria-label={title}>
      <div className="card-body gap-3 p-4 sm:p-5">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 className="card-title text-base">{title}</h2>
          <Tooltip content="Attempts seen in the last 24 hours">
            <span className="badge badge-ghost badge-sm" tabIndex={0}>
              Last 24h
            </span>
          </Tooltip>
        </div>
        {threats.length === 0 && empty ? (
          empty
        ) : threats.length === 0 ? (
          <div className="flex flex-col items-center gap-2 py-8 text-center">
            <ShieldCheck className="h-10 w-10 text-success" aria-hidden />
            <p className="font-semibold">No Active Threats</p>
            <p className="text-sm opacity-70">Your domains are currently secure from malicious activity.</p>
          </div>
        ) : (
          <>
            <div className="flex flex-wrap items-center gap-1 text-xs" role="group" aria-label="Sort threats">
              <span className="mr-1 opacity-60">Sort by</span>
              {(Object.keys(COLUMN_LABELS) as ThreatSortKey[]).map((key) => {
                const active = sort.key === key;
                const Icon = !active ? ArrowUpDown : sort.direction === "asc" ? ArrowUp : ArrowDown;
                return (
                  <button
                    key={key}
                    type="button"
                    className={`btn btn-xs ${active ? "btn-primary btn-soft" : "btn-ghost"}`}
                    aria-pressed={active}
                    onClick={() => setSort((s) => nextSort(s, key))}
                  >
                    {COLUMN_LABELS[key]}
                    <Icon className="h-3 w-3" aria-hidden />
                    {active && <span className="sr-only">{sort.direction === "asc" ? "(ascending)" : "(descending)"}</span>}
                  </button>
                );
              })}
            </div>
            <ul ref={list} tabIndex={scrolls ? 0 : undefined} className="max-h-96 divide-y divide-base-300 overflow-y-auto" aria-label="Threats">
              {sorted.map((t) => (
                <li key={t.ipAddress} className="flex items-center justify-between gap-3 py-2.5" data-ip={t.ipAddress}>
                  <div className="min-w-0">
                    <p className="truncate font-mono text-sm font-medium">{t.ipAddress}</p>
                    <p className="truncate text-xs opacity-60" title={t.service ?? t.ptr ?? undefined}>
                      {/* who the address is: its sending service, else its reverse DNS name */}
                      {t.service || t.ptr ? `${t.service ?? t.ptr} · ` : ""}
                      {[t.city, t.country].filter(Boolean).join(", ")} · {formatRelativeTime(t.lastSeenAt, now)}
                    </p>
                  </div>
                  <div className="flex shrink-0 items-center gap-2">
                    <span className="text-sm font-semibold tabular-nums">{formatCount(t.attemptCount)}</span>
                    <span className={`badge badge-sm w-16 justify-center ${LEVEL_BADGE[t.threatLevel]}`}>{LEVEL_LABEL[t.threatLevel]}</span>
                  </div>
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    </section>
  );
}
