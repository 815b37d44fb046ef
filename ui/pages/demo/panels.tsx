import { AlertTriangle, CheckCircle2, FileText, Globe, ListChecks, TrendingDown, TrendingUp } from "lucide-react";
import { Tooltip } from "../../components/TooltipProvider";
import { formatCount, formatPercent, formatRelativeTime, formatReportsProcessed, passRateClass } from "../../lib/format";
import type { DemoReport, DemoStats, DemoTask } from "./sample-data";
import { ScrollArea } from "../../components/ScrollArea";

function Change({ value, goodWhen }: { value: string; goodWhen: "up" | "down" }) {
  const up = value.startsWith("+");
  const good = (up && goodWhen === "up") || (!up && goodWhen === "down");
  const Icon = up ? TrendingUp : TrendingDown;
  return (
    <span className={`inline-flex items-center gap-1 text-xs font-medium ${good ? "text-success" : "text-error"}`}>
      <Icon className="h-3.5 w-3.5" aria-hidden />
      {value}
    </span>
  );
}

export function StatCards({ stats }: { stats: DemoStats }) {
  const cards = [
    { label: "Total Domains", value: String(stats.totalDomains), icon: Globe, change: <Change value={stats.domainGrowth} goodWhen="up" />, note: "this month" },
    {
      label: "DMARC Protected",
      value: `${stats.dmarcProtected}/${stats.totalDomains}`,
      icon: CheckCircle2,
      change: <span className="text-xs font-medium text-primary">{formatPercent(stats.protectionRate)}</span>,
      note: "at p=reject",
    },
    { label: "Active Issues", value: String(stats.activeIssues), icon: AlertTriangle, change: <Change value={stats.issueChange} goodWhen="down" />, note: "since last week" },
    {
      label: "Reports Processed",
      value: formatReportsProcessed(stats.reportsProcessed),
      icon: FileText,
      change: <Change value={stats.reportGrowth} goodWhen="up" />,
      note: "this month",
      tip: `${formatCount(stats.reportsProcessed)} DMARC reports`,
    },
  ];
  return (
    <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4">
      {cards.map(({ label, value, icon: Icon, change, note, tip }) => {
        const number = <p className="text-2xl font-bold sm:text-3xl">{value}</p>;
        return (
          <div key={label} className="card border border-base-300 bg-base-100">
            <div className="card-body gap-1 p-4">
              <div className="flex items-center justify-between">
                <p className="text-xs font-medium opacity-70 sm:text-sm">{label}</p>
                <Icon className="h-4 w-4 text-primary" aria-hidden />
              </div>
              {tip ? (
                <Tooltip content={tip}>
                  <div tabIndex={0} className="w-fit">
                    {number}
                  </div>
                </Tooltip>
              ) : (
                number
              )}
              <p className="flex flex-wrap items-center gap-1 text-xs">
                {change}
                <span className="opacity-70">{note}</span>
              </p>
            </div>
          </div>
        );
      })}
    </div>
  );
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

const PRIORITY_BADGE: Record<DemoTask["priority"], string> = { high: "badge-error", medium: "badge-warning", low: "badge-info" };

export function TaskList({ tasks, now, limit }: { tasks: DemoTask[]; now: Date; limit?: number }) {
  const shown = limit ? tasks.slice(0, limit) : tasks;
  if (shown.length === 0)
    return (
      <div className="flex flex-col items-center gap-2 py-6 opacity-70">
        <ListChecks className="h-8 w-8" aria-hidden />
        <p>No active tasks or issues</p>
      </div>
    );
  return (
    <ul className="grid gap-2" aria-label="Tasks">
      {shown.map((t) => (
        <li key={t.id} className="rounded-field border border-base-300 p-3">
          <div className="flex items-start justify-between gap-2">
            <p className="font-medium">{t.title}</p>
            <span className={`badge badge-sm shrink-0 ${PRIORITY_BADGE[t.priority]}`}>{capitalise(t.priority)}</span>
          </div>
          <p className="mt-1 text-sm opacity-70">{t.description}</p>
          <p className="mt-1 text-xs opacity-70">{formatRelativeTime(t.createdAt, now)}</p>
        </li>
      ))}
    </ul>
  );
}

export function ReportTable({ reports, now, limit }: { reports: DemoReport[]; now: Date; limit?: number }) {
  const shown = limit ? reports.slice(0, limit) : reports;
  if (shown.length === 0) return <p className="py-6 text-center opacity-70">No reports available</p>;
  return (
    <ScrollArea label="Reports table">
      <table className="table table-sm">
        <thead>
          <tr>
            <th>Reporter</th>
            <th className="text-right">Messages</th>
            <th className="text-right">Pass Rate</th>
            <th className="whitespace-nowrap">Processed</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr key={r.id}>
              <td className="font-medium">{r.orgName}</td>
              <td className="text-right tabular-nums">{formatCount(r.totalMessages)}</td>
              <td className={`text-right font-semibold tabular-nums ${passRateClass(r.passRate)}`} data-testid="pass-rate">
                {formatPercent(r.passRate)}
              </td>
              <td className="whitespace-nowrap text-sm opacity-70">{formatRelativeTime(r.processedAt, now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}
