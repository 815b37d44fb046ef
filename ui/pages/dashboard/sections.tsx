import { AlertCircle, ArrowRight, BarChart3, CheckCircle2, Globe, RefreshCw, ShieldQuestionMark } from "lucide-react";
import { Link } from "react-router";
import { DomainStatusTable } from "../../components/DomainStatusTable";
import { EmptyState } from "../../components/EmptyState";
import { DASHBOARD_LIST_LIMIT } from "../../lib/constants";
import { formatCount, formatPercent, formatRelativeTime, passRateClass } from "../../lib/format";
import type { DomainView } from "../domains/api";
import { TaskItem } from "../tasks/TaskItem";
import type { DmarcReportSummary, Task } from "./api";

export { EmptyState };

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


export function LoadingRows({ rows = 3 }: { rows?: number }) {
  return (
    <div className="grid gap-3 py-2" role="status" aria-label="Loading">
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton h-10 w-full" />
      ))}
    </div>
  );
}

/** The dashboard's domain status card body: the shared table, stacked on phones, with an empty state that leads to Domains. */
export function DomainStatus({ domains, now }: { domains: DomainView[]; now?: Date }) {
  return (
    <DomainStatusTable
      domains={domains}
      now={now}
      compact
      linkTo={(d) => `/app/domains/${d.id}`}
      empty={
        <EmptyState icon={Globe} title="No domains">
          Add the domains you send mail from to see their protection here.{" "}
          <Link to="/app/domains" className="link link-primary">
            Add a domain
          </Link>
        </EmptyState>
      }
    />
  );
}

/**
 * What the organization's empty lists can honestly say: nothing is monitored yet (no domains),
 * domains are monitored but no report has arrived (so nobody has seen its mail), or ready.
 * Unknown while the domains load: treated as ready, the lists' own wording.
 */
export type Footing = "no-domains" | "no-reports" | "ready";

export function footingOf(domains: DomainView[] | undefined): Footing {
  if (!domains) return "ready";
  if (domains.length === 0) return "no-domains";
  return domains.some((d) => d.lastReportAt) ? "ready" : "no-reports";
}

/** The threat list's empty state before there is anything to judge (SPEC's "currently secure" needs reports). */
export function NothingToJudge({ footing }: { footing: Exclude<Footing, "ready"> }) {
  return (
    <EmptyState icon={ShieldQuestionMark} title="No Active Threats">
      {footing === "no-domains"
        ? "No domain is monitored yet. Add one and publish DMARC: threats appear here once reports show who sends mail as it."
        : "No report has arrived yet, so nobody has told us who sends mail as your domains. Threats appear here once reports arrive."}
    </EmptyState>
  );
}

export function RecentTasks({ tasks, now, footing = "ready" }: { tasks: Task[]; now?: Date; footing?: Footing }) {
  if (tasks.length === 0) {
    return (
      <EmptyState icon={CheckCircle2} title="No active tasks or issues">
        {footing === "no-domains"
          ? "Add a domain: its DNS records are checked at once, and what to fix appears here."
          : footing === "no-reports"
            ? "Nothing to fix in your domains' DNS records. Tasks about who sends mail as your domains appear once reports arrive."
            : "Your domains' records look right. New issues appear here as soon as a check or a report finds one."}
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
