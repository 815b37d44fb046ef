import { CheckCircle2 } from "lucide-react";
import { useState } from "react";
import { errorMessage } from "../../lib/api";
import { useTasks, type Task } from "../dashboard/api";
import { Link } from "react-router";
import { useDomains } from "../domains/api";
import { EmptyState, ErrorCard, footingOf, LoadingRows } from "../dashboard/sections";
import { TaskItem } from "./TaskItem";

const GROUPS: { priority: Task["priority"]; title: string; hint: string }[] = [
  { priority: "high", title: "High priority", hint: "Your domains are exposed or mail is failing now." },
  { priority: "medium", title: "Medium priority", hint: "Close these before enforcing DMARC." },
  { priority: "low", title: "Low priority", hint: "Fine-tuning once you are protected." },
];

type Filter = "all" | Task["priority"];

/** SPEC §2 Tasks & Issues: every derived task, grouped by priority, with a filter. */
export default function TasksPage() {
  const tasks = useTasks();
  const footing = footingOf(useDomains().data);
  const [filter, setFilter] = useState<Filter>("all");
  const list = tasks.data ?? [];
  const counts = { all: list.length, high: 0, medium: 0, low: 0 } as Record<Filter, number>;
  for (const t of list) counts[t.priority]++;

  return (
    <div className="mx-auto grid max-w-5xl gap-4 sm:gap-6">
      <header>
        <h1 className="text-2xl font-bold sm:text-3xl">Tasks & Issues</h1>
        <p className="text-sm opacity-70">What to fix next, worked out from your domains' DNS records and your DMARC reports. A task disappears once its cause is fixed.</p>
      </header>
      {tasks.isPending ? (
        <LoadingRows rows={5} />
      ) : tasks.isError ? (
        <div className="card border border-base-300 bg-base-100">
          <ErrorCard onRetry={() => tasks.refetch()} detail={errorMessage(tasks.error)} />
        </div>
      ) : list.length === 0 ? (
        <div className="card border border-base-300 bg-base-100">
          <EmptyState icon={CheckCircle2} title="No active tasks or issues">
            {footing === "no-domains" ? (
              <>
                No domain is monitored yet.{" "}
                <Link to="/app/domains" className="link link-primary">
                  Add a domain
                </Link>
                : its DNS records are checked at once, and what to fix appears here.
              </>
            ) : footing === "no-reports" ? (
              "Your domains' DNS records show nothing to fix. Tasks about who sends mail as your domains appear once reports arrive."
            ) : (
              "Every domain's records look right and your reports show nothing to fix."
            )}
          </EmptyState>
        </div>
      ) : (
        <>
          <div className="flex flex-wrap gap-2" role="group" aria-label="Filter by priority">
            {(["all", "high", "medium", "low"] as const).map((f) => (
              <button key={f} type="button" className={`btn btn-sm ${filter === f ? "btn-primary" : "btn-ghost border-base-300 bg-base-100"}`} aria-pressed={filter === f} onClick={() => setFilter(f)}>
                {f === "all" ? "All" : f[0]!.toUpperCase() + f.slice(1)} <span className="badge badge-sm">{counts[f]}</span>
              </button>
            ))}
          </div>
          {GROUPS.filter((g) => (filter === "all" || filter === g.priority) && counts[g.priority] > 0).map((g) => (
            <section key={g.priority} className="card border border-base-300 bg-base-100" aria-label={g.title}>
              <div className="card-body gap-1 p-4 sm:p-5">
                <h2 className="card-title text-base">
                  {g.title} <span className="badge badge-ghost badge-sm">{counts[g.priority]}</span>
                </h2>
                <p className="text-xs opacity-60">{g.hint}</p>
                <ul className="divide-y divide-base-300">
                  {list
                    .filter((t) => t.priority === g.priority)
                    .map((t) => (
                      <TaskItem key={t.id} task={t} />
                    ))}
                </ul>
              </div>
            </section>
          ))}
        </>
      )}
    </div>
  );
}
