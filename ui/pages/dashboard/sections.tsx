import { AlertCircle, ArrowRight, BarChart3, CheckCircle2, Globe, RefreshCw } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { StatusBadge } from "../../components/StatusBadge";
import { formatCount, formatPercent, formatRelativeTime, passRateClass } from "../../lib/format";
import type { DomainView } from "../domains/api";
import { TaskItem } from "../tasks/TaskItem";
import type { DmarcReportSummary, Task } from "./api";

/** SPEC §9: dashboard lists show at most 3 tasks and 3 reports. */
export const DASHBOARD_LIST_LIMIT = 3;

export function Section({ title, action, children, className = "" }: { title: string; action?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card min-w-0 border border-base-300 bg-base-100 ${className}`} aria-label={title}>
      <div className="card-body gap-3 p-4 sm:p-5">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 className="card-title text-base">{title}</h2>
          {action}
        </div>
        {children}
      </div>
    </section>
  );
}

export function ViewAll({ to, label = "View all" }: { to: string; label?: string }) {
  return (
    <Link to={to} className="btn btn-ghost btn-xs gap-1 text-primary">
      {label} <ArrowRight className="h-3 w-3" aria-hidden />
    </Link>
  );
}

/** SPEC §8 generic error card. */
export function ErrorCard({ onRetry, detail }: { onRetry: () => void; detail?: string }) {
  return (
    <div className="flex flex-col items-center gap-2 py-6 text-center" role="alert">
      <AlertCircle className="h-8 w-8 text-error" aria-hidden />
      <p className="font-semibold">Something went wrong</p>
      {detail && <p className="max-w-sm text-xs opacity-60">{detail}</p>}
      <button type="button" className="btn btn-outline btn-sm" onClick={onRetry}>
        <RefreshCw className="h-3.5 w-3.5" aria-hidden /> Try Again
      </button>
    </div>
  );
}

export function EmptyState({ icon: Icon, title, children }: { icon: typeof Globe; title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 py-8 text-center">
      <Icon className="h-10 w-10 opacity-30" aria-hidden />
      <p className="font-semibold">{title}</p>
      {children && <div className="max-w-sm text-sm opacity-70">{children}</div>}
    </div>
  );
}

export function LoadingRows({ rows = 3 }: { rows?: number }) {
  return (
    <div className="grid gap-3 py-2" role="status" aria-label="Loading">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton h-10 w-full" />
      ))}
    </div>
  );
}

/** The domain status table: each domain's DMARC policy, SPF, DKIM and overall status. */
export function DomainStatusTable({ domains, now }: { domains: DomainView[]; now?: Date }) {
  if (domains.length === 0) {
    return (
      <EmptyState icon={Globe} title="No domains">
        Add the domains you send mail from to see their protection here.{" "}
        <Link to="/app/domains" className="link link-primary">
          Add a domain
        </Link>
      </EmptyState>
    );
  }
  const badge = (status: string | null) => (status ? <StatusBadge status={status} /> : <StatusBadge status="pending" label="Checking" />);
  return (
    <>
      {/* phones: one stacked row a domain, so every status stays in view */}
      <ul className="divide-y divide-base-300 sm:hidden" aria-label="Domains">
        {domains.map((d) => (
          <li key={d.id} className="grid gap-1.5 py-2.5" data-domain-row={d.name}>
            <div className="flex items-center justify-between gap-2">
              <span className="min-w-0 truncate font-medium">{d.name}</span>
              <StatusBadge status={d.overallStatus} />
            </div>
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
              <span className="inline-flex items-center gap-1">DMARC {badge(d.dmarcPolicy)}</span>
              <span className="inline-flex items-center gap-1">SPF {badge(d.spfStatus)}</span>
              <span className="inline-flex items-center gap-1">DKIM {badge(d.dkimStatus)}</span>
            </div>
          </li>
        ))}
      </ul>
      <div className="hidden overflow-x-auto sm:block">
        <table className="table table-sm">
          <thead>
            <tr>
              <th>Domain</th>
              <th>DMARC</th>
              <th>SPF</th>
              <th>DKIM</th>
              <th>Status</th>
              <th className="hidden sm:table-cell">Last report</th>
            </tr>
          </thead>
          <tbody>
            {domains.map((d) => (
              <tr key={d.id} data-domain={d.name}>
                <td className="max-w-48 truncate font-medium">{d.name}</td>
                <td>{badge(d.dmarcPolicy)}</td>
                <td>{badge(d.spfStatus)}</td>
                <td>{badge(d.dkimStatus)}</td>
                <td>
                  <StatusBadge status={d.overallStatus} />
                </td>
                <td className="hidden whitespace-nowrap text-xs opacity-70 sm:table-cell">{d.lastReportAt ? formatRelativeTime(d.lastReportAt, now) : "None yet"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function RecentTasks({ tasks, now }: { tasks: Task[]; now?: Date }) {
  if (tasks.length === 0) {
    return (
      <EmptyState icon={CheckCircle2} title="No active tasks or issues">
        Your domains' records look right. New issues appear here as soon as a check or a report finds one.
      </EmptyState>
    );
  }
  return (
    <ul className="divide-y divide-base-300" aria-label="Tasks">
      {tasks.slice(0, DASHBOARD_LIST_LIMIT).map((t) => (
        <TaskItem key={t.id} task={t} now={now} compact />
      ))}
    </ul>
  );
}

export function RecentReports({ reports, now }: { reports: DmarcReportSummary[]; now?: Date }) {
  if (reports.length === 0) {
    return (
      <EmptyState icon={BarChart3} title="No reports available">
        Aggregate reports appear here once mailbox providers send them, or when you upload them on the DMARC Reports screen.
      </EmptyState>
    );
  }
  return (
    <ul className="divide-y divide-base-300" aria-label="Reports">
      {reports.slice(0, DASHBOARD_LIST_LIMIT).map((r) => (
        <li key={r.id} className="flex items-center justify-between gap-3 py-2.5" data-report={r.id}>
          <div className="min-w-0">
            <p className="truncate text-sm font-medium">{r.orgName}</p>
            <p className="truncate text-xs opacity-60">
              {r.domain ? `${r.domain} · ` : ""}
              {formatCount(r.totalMessages)} messages · {formatRelativeTime(r.processedAt, now)}
            </p>
          </div>
          <div className="shrink-0 text-right">
            <p className={`text-sm font-semibold tabular-nums ${passRateClass(r.passRate)}`} data-pass-rate={r.passRate}>
              {formatPercent(r.passRate)}
            </p>
            <p className="text-[11px] opacity-60">pass rate</p>
          </div>
        </li>
      ))}
    </ul>
  );
}
