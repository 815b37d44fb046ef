import { AlertTriangle, BarChart3, FileText, Globe, RefreshCw, ShieldCheck } from "lucide-react";
import { useMemo } from "react";
import { DnsLookupTool } from "../../components/DnsLookupTool";
import { NotificationsMenu } from "../../components/NotificationsMenu";
import { QuickActions } from "../../components/QuickActions";
import { ChangeBadge, StatCard } from "../../components/StatCard";
import { ThreatList } from "../../components/ThreatList";
import { TrendPanel } from "../../components/TrendPanel";
import { errorMessage } from "../../lib/api";
import { isSignedIn, useMe } from "../../lib/auth";
import { formatCount, formatReportsProcessed } from "../../lib/format";
import { useDomains } from "../domains/api";
import { useDashboardStats, useReports, useTasks, useThreats, type DashboardStats } from "./api";
import { notificationsFrom } from "./notifications";
import { Panel } from "../../components/Panel";
import { GettingStarted } from "./GettingStarted";
import { DomainStatus, ErrorCard, footingOf, LoadingRows, NothingToJudge, RecentReports, RecentTasks, ViewAll } from "./sections";

/** The Refresh Data button: SPEC §2 reloads the page. */
export function reloadPage() {
  window.location.reload();
}

function StatCards({ stats }: { stats: DashboardStats }) {
  return (
    <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4" aria-label="Statistics" role="region">
      <StatCard
        label="DMARC Protection"
        icon={ShieldCheck}
        value={`${stats.protectionRate}%`}
        footer={<span className="opacity-70">{stats.dmarcProtected} of {stats.totalDomains} domains enforced</span>}
      />
      <StatCard
        label="Total Domains"
        icon={Globe}
        value={formatCount(stats.totalDomains)}
        footer={
          <>
            <ChangeBadge value={stats.domainGrowth} goodWhen="up" />
            <span className="opacity-60">last 30 days</span>
          </>
        }
      />
      <StatCard
        label="Active Issues"
        icon={AlertTriangle}
        value={formatCount(stats.activeIssues)}
        footer={
          <>
            <ChangeBadge value={stats.issueChange} goodWhen="down" />
            <span className="opacity-60">vs 30 days ago</span>
          </>
        }
      />
      <StatCard
        label="Reports Processed"
        icon={FileText}
        value={formatReportsProcessed(stats.reportsProcessed)}
        title={`${formatCount(stats.reportsProcessed)} reports in the last 30 days`}
        detail={<span data-exact-count>{`${formatCount(stats.reportsProcessed)} ${stats.reportsProcessed === 1 ? "report" : "reports"}`}</span>}
        footer={
          <>
            <ChangeBadge value={stats.reportGrowth} goodWhen="up" />
            <span className="opacity-60">last 30 days</span>
          </>
        }
      />
    </div>
  );
}

function StatsUnavailable({ onRetry }: { onRetry: () => void }) {
  return (
    <div className="card border border-base-300 bg-base-100" role="alert">
      <div className="card-body flex-row flex-wrap items-center gap-3 p-4">
        <BarChart3 className="h-8 w-8 shrink-0 opacity-40" aria-hidden />
        <div className="min-w-0 flex-1">
          <p className="font-semibold">No Stats Available</p>
          <p className="text-sm opacity-70">Dashboard statistics could not be loaded. Please try again.</p>
        </div>
        <button type="button" className="btn btn-outline btn-sm" onClick={onRetry}>
          Try Again
        </button>
      </div>
    </div>
  );
}

/** SPEC §2 Authenticated dashboard. */
export function DashboardView({ now }: { now?: Date }) {
  const me = useMe();
  const stats = useDashboardStats();
  const domains = useDomains();
  const tasks = useTasks();
  const threats = useThreats();
  const reports = useReports();
  const notifications = useMemo(() => notificationsFrom({ tasks: tasks.data, threats: threats.data, reports: reports.data }), [tasks.data, threats.data, reports.data]);
  const orgName = isSignedIn(me.data) ? me.data.currentOrg?.name : undefined;
  const footing = footingOf(domains.data);

  return (
    <div className="mx-auto grid max-w-7xl grid-cols-1 gap-4 sm:gap-6">
      <header className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 className="text-2xl font-bold sm:text-3xl">Dashboard</h1>
          <p className="text-sm opacity-70">{orgName ? `Email authentication overview for ${orgName}` : "Email authentication overview"}</p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <NotificationsMenu notifications={notifications} now={now} />
          <QuickActions />
          <button type="button" className="btn btn-outline bg-base-100" onClick={reloadPage}>
            <RefreshCw className="h-4 w-4" aria-hidden /> Refresh Data
          </button>
        </div>
      </header>

      {stats.isPending ? (
        <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4" role="status" aria-label="Loading statistics">
          {[0, 1, 2, 3].map((i) => (
            <div key={i} className="skeleton h-28" />
          ))}
        </div>
      ) : stats.isError || !stats.data ? (
        <StatsUnavailable onRetry={() => stats.refetch()} />
      ) : (
        <StatCards stats={stats.data} />
      )}

      <GettingStarted />

      <TrendPanel domains={domains.data?.map((d) => d.name)} now={now} />

      <div className="grid gap-4 sm:gap-6 lg:grid-cols-3">
        <div className="grid min-w-0 content-start gap-4 sm:gap-6 lg:col-span-2">
          <Panel title="Domain Status" action={<ViewAll to="/app/domains" label="Manage" />}>
            {domains.isPending ? <LoadingRows /> : domains.isError ? <ErrorCard onRetry={() => domains.refetch()} detail={errorMessage(domains.error)} /> : <DomainStatus domains={domains.data} now={now} />}
          </Panel>
          <Panel title="Recent Reports" action={<ViewAll to="/app/reports" />}>
            {reports.isPending ? <LoadingRows /> : reports.isError ? <ErrorCard onRetry={() => reports.refetch()} detail={errorMessage(reports.error)} /> : <RecentReports reports={reports.data} now={now} />}
          </Panel>
          <Panel title="Quick DNS Lookup" action={<ViewAll to="/app/dns" label="Full lookup" />}>
            <DnsLookupTool compact />
          </Panel>
        </div>
        <div className="grid min-w-0 content-start gap-4 sm:gap-6">
          <Panel title="Tasks & Issues" action={tasks.data && tasks.data.length > 0 ? <ViewAll to="/app/tasks" label={`View all (${tasks.data.length})`} /> : undefined}>
            {tasks.isPending ? <LoadingRows /> : tasks.isError ? <ErrorCard onRetry={() => tasks.refetch()} detail={errorMessage(tasks.error)} /> : <RecentTasks tasks={tasks.data} now={now} footing={footing} />}
          </Panel>
          {threats.isPending ? (
            <Panel title="Threat Activity">
              <LoadingRows />
            </Panel>
          ) : threats.isError ? (
            <Panel title="Threat Activity">
              <ErrorCard onRetry={() => threats.refetch()} detail={errorMessage(threats.error)} />
            </Panel>
          ) : (
            <ThreatList threats={threats.data} now={now} empty={footing === "ready" ? undefined : <NothingToJudge footing={footing} />} />
          )}
        </div>
      </div>

    </div>
  );
}
