import { AlertOctagon, AlertTriangle, ArrowRight, Info } from "lucide-react";
import { Link } from "react-router";
import { formatRelativeTime } from "../../lib/format";
import type { Task } from "../dashboard/api";

const PRIORITY = {
  high: { label: "High", badge: "badge-error", icon: AlertOctagon, tone: "text-error" },
  medium: { label: "Medium", badge: "badge-warning", icon: AlertTriangle, tone: "text-warning" },
  low: { label: "Low", badge: "badge-info", icon: Info, tone: "text-info" },
} as const;

export function PriorityBadge({ priority }: { priority: Task["priority"] }) {
  return <span className={`badge badge-sm ${PRIORITY[priority].badge}`}>{PRIORITY[priority].label}</span>;
}

/** One task: what is wrong, what to do, when it started, and where to act. */
export function TaskItem({ task, now, compact = false }: { task: Task; now?: Date; compact?: boolean }) {
  const { icon: Icon, tone } = PRIORITY[task.priority];
  return (
    <li className="flex gap-3 py-3" data-task={task.id}>
      <Icon className={`mt-0.5 h-5 w-5 shrink-0 ${tone}`} aria-hidden />
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <p className="font-medium leading-snug">{task.title}</p>
          <PriorityBadge priority={task.priority} />
        </div>
        <p className={`mt-1 text-sm opacity-75 ${compact ? "line-clamp-2" : ""}`}>{task.description}</p>
        <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
          <span className="opacity-70">{formatRelativeTime(task.createdAt, now)}</span>
          {!compact && task.link && (
            <Link to={task.link} className="link link-primary inline-flex items-center gap-1">
              {LINK_LABEL[task.link] ?? (task.link.endsWith("#readiness") ? "Open readiness" : "Open")} <ArrowRight className="h-3 w-3" aria-hidden />
            </Link>
          )}
        </div>
      </div>
    </li>
  );
}

const LINK_LABEL: Record<string, string> = {
  "/app/domains": "Domains",
  "/app/dns": "Run a DNS Lookup",
  "/app/reports": "See the reports",
  "/app/threats": "Threat Map",
  "/app/settings": "Settings",
};
