import type { ReactNode } from "react";
import { Link } from "react-router";
import { formatRelativeTime } from "../lib/format";
import { ScrollArea } from "./ScrollArea";
import { StatusBadge, statusLabel } from "./StatusBadge";

/** What the table needs of a domain (SPEC §3 Domain): the signed-in API's view and the demo's sample data both fit. */
export interface DomainStatusRow {
  id: string;
  name: string;
  dmarcPolicy: string | null;
  spfStatus: string | null;
  dkimStatus: string | null;
  overallStatus: string;
  lastReportAt: Date | string | null;
  /** the last check that succeeded (the statuses are from then) */
  lastCheckedAt?: Date | string | null;
  /** the last check the DNS server did not answer */
  checkFailedAt?: Date | string | null;
}

const time = (v: Date | string) => new Date(v).getTime();

/** True when the latest DNS check went unanswered (the statuses shown are the last good ones, if any). */
export function checkFailed(d: Pick<DomainStatusRow, "lastCheckedAt" | "checkFailedAt">): boolean {
  return !!d.checkFailedAt && (!d.lastCheckedAt || time(d.checkFailedAt) >= time(d.lastCheckedAt));
}

/**
 * The overall status, honest about the checks: "Not checked yet" before the first one; "Check
 * failed" when the DNS server did not answer the latest, with the last good result and its time.
 */
export function OverallStatusBadge({ domain, now }: { domain: DomainStatusRow; now?: Date }) {
  if (checkFailed(domain)) {
    const lastGood = domain.lastCheckedAt && domain.overallStatus !== "pending" ? `last good: ${statusLabel(domain.overallStatus)}, ${formatRelativeTime(domain.lastCheckedAt, now).toLowerCase()}` : "never checked";
    return (
      <span className="inline-flex flex-col items-start gap-0.5" data-check="failed" title="Could not check (DNS server did not answer)">
        <StatusBadge status="check failed" label="Check failed" />
        <span className="text-xs opacity-70">{lastGood}</span>
      </span>
    );
  }
  if (domain.overallStatus === "pending") return <StatusBadge status="pending" label="Not checked yet" />;
  return <StatusBadge status={domain.overallStatus} />;
}

/** A status not known yet (the domain has not been checked) shows the neutral "Pending" badge. */
function Badge({ status }: { status: string | null }) {
  return <StatusBadge status={status ?? "pending"} />;
}

function lastReport(d: DomainStatusRow, now?: Date) {
  return d.lastReportAt ? formatRelativeTime(d.lastReportAt, now) : "No reports yet";
}

/**
 * The domain status table: each domain's DMARC policy, SPF, DKIM, overall status and last report.
 * `renderActions` adds a last column (e.g. a remove button). `stackOnPhones` shows a stacked list
 * on phones instead of a table that scrolls sideways; `compact` (dashboard cards) is a smaller
 * table that always stacks on phones. The layout follows the width of the card, not the window
 * (container queries): a compact table in a narrow card shows the last report under the name
 * instead of in its own column, the stacked list replaces the table when even that would not
 * fit, and whatever is still too wide scrolls inside the card (ScrollArea).
 */
export function DomainStatusTable<D extends DomainStatusRow>({
  domains,
  now,
  renderActions,
  compact = false,
  stackOnPhones = compact,
  empty = <p className="py-6 text-center opacity-70">No domains</p>,
  linkTo,
}: {
  domains: D[];
  now?: Date;
  renderActions?: (domain: D) => ReactNode;
  compact?: boolean;
  stackOnPhones?: boolean;
  /** Shown instead of the table when there are no domains. */
  empty?: ReactNode;
  /** Where a domain's name leads (its own page); plain text when absent. */
  linkTo?: (domain: D) => string;
}) {
  if (domains.length === 0) return <>{empty}</>;
  const name = (d: D) =>
    linkTo ? (
      <Link to={linkTo(d)} className="link link-hover" data-domain-link={d.name}>
        {d.name}
      </Link>
    ) : (
      d.name
    );
  const table = (
    <table className={`table ${compact ? "table-sm" : ""}`}>
      <thead>
        <tr>
          <th>Domain</th>
          <th>{compact ? "DMARC" : "DMARC Policy"}</th>
          <th>SPF</th>
          <th>DKIM</th>
          <th>Status</th>
          <th className={`whitespace-nowrap ${compact ? "hidden @3xl:table-cell" : ""}`}>Last Report</th>
          {renderActions && (
            <th>
              <span className="sr-only">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {domains.map((d) => (
          <tr key={d.id} data-domain={d.name}>
            <td className={`font-medium ${compact ? "max-w-48 break-words" : "whitespace-nowrap"}`}>
              {name(d)}
              {compact && <span className="block text-xs font-normal opacity-70 @3xl:hidden">{lastReport(d, now)}</span>}
            </td>
            <td>
              <Badge status={d.dmarcPolicy} />
            </td>
            <td>
              <Badge status={d.spfStatus} />
            </td>
            <td>
              <Badge status={d.dkimStatus} />
            </td>
            <td>
              <OverallStatusBadge domain={d} now={now} />
            </td>
            <td className={`whitespace-nowrap opacity-70 ${compact ? "hidden text-xs @3xl:table-cell" : "text-sm"}`}>{lastReport(d, now)}</td>
            {renderActions && <td className="text-right">{renderActions(d)}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
  if (!stackOnPhones) return <ScrollArea label="Domain status table">{table}</ScrollArea>;
  return (
    <div className="@container">
      {/* phones: one stacked row a domain, so every status stays in view */}
      <ul className={`divide-y divide-base-300 @lg:hidden ${compact ? "" : "px-4"}`} aria-label="Domains">
        {domains.map((d) => (
          <li key={d.id} className="grid gap-1.5 py-2.5" data-domain-row={d.name}>
            <div className="flex items-center justify-between gap-2">
              <span className="min-w-0 truncate font-medium">{name(d)}</span>
              <span className="flex shrink-0 items-center gap-1">
                <OverallStatusBadge domain={d} now={now} />
                {renderActions?.(d)}
              </span>
            </div>
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
              <span className="inline-flex items-center gap-1">DMARC <Badge status={d.dmarcPolicy} /></span>
              <span className="inline-flex items-center gap-1">SPF <Badge status={d.spfStatus} /></span>
              <span className="inline-flex items-center gap-1">DKIM <Badge status={d.dkimStatus} /></span>
            </div>
          </li>
        ))}
      </ul>
      <ScrollArea label="Domain status table" className="hidden @lg:block">
        {table}
      </ScrollArea>
    </div>
  );
}
