import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { RefreshCw, ScrollText } from "lucide-react";
import { useId, useState } from "react";
import { AUDIT_ACTIONS } from "../../../src/features/audit/actions";
import type { AuditPage } from "../../../src/features/audit/contract";
import type { MembersResponse } from "../../../src/features/orgs/contract";
import { apiRequest, errorMessage } from "../../lib/api";
import { isSignedIn, useMe } from "../../lib/auth";

type Entry = AuditPage["entries"][number];

const actionLabel = (action: string) => (AUDIT_ACTIONS as Record<string, string>)[action] ?? action;
const KIND_LABEL: Record<Entry["actorKind"], string> = { user: "User", token: "API token", system: "System" };

/** Names of the fields records mention, as the screens call them. */
const FIELD_LABELS: Record<string, string> = {
  retentionAggregateDays: "Aggregate reports kept (days)",
  retentionFailureDays: "Failure reports kept (days)",
  aggregateDays: "Aggregate reports kept (days)",
  failureDays: "Failure reports kept (days)",
  aggregateReports: "Aggregate reports deleted",
  aggregateRecords: "Records deleted",
  failureReports: "Failure reports deleted",
  organizationName: "Organization name",
  contactEmail: "Contact email",
  emailNotifications: "Email notifications",
  dmarcRua: "Aggregate report address",
  dmarcRuf: "Failure report address",
  autoProcessReports: "Auto-process reports",
  dnsCaching: "DNS caching",
  cacheTtlSeconds: "Cache TTL (seconds)",
  realtimeThreatMonitoring: "Real-time threat monitoring",
  complianceAlerts: "Compliance alerts",
  digestEnabled: "Weekly digest",
  digestDay: "Digest day",
  digestHour: "Digest hour",
  digestIncludeClients: "Digest includes clients",
  role: "Role",
};

/** What a record's data says, in a line (field names and values; never secrets — the server keeps them out). */
function details(entry: Entry): string {
  if (!entry.data) return "";
  return Object.entries(entry.data)
    .map(([k, v]) => {
      const name = FIELD_LABELS[k] ?? k;
      if (v && typeof v === "object" && "from" in (v as object) && "to" in (v as object)) return `${name}: ${String((v as { from: unknown }).from)} → ${String((v as { to: unknown }).to)}`;
      return `${name}: ${typeof v === "object" ? JSON.stringify(v) : String(v)}`;
    })
    .join(", ");
}

/** Settings → Audit log (admins and owners): who did what, when and from where; newest first. */
export function AuditLogSection() {
  const uid = useId();
  const me = useMe();
  const role = isSignedIn(me.data) ? me.data.currentOrg?.role : undefined;
  const allowed = role === "owner" || role === "admin";
  const [action, setAction] = useState("");
  const [actor, setActor] = useState("");
  const members = useQuery<MembersResponse>({ queryKey: ["/api/members"], enabled: allowed });
  const log = useInfiniteQuery({
    queryKey: ["/api/audit", action, actor],
    enabled: allowed,
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) => {
      const params = new URLSearchParams({ limit: "25" });
      if (action) params.set("action", action);
      if (actor) params.set("actor", actor);
      if (pageParam) params.set("cursor", pageParam);
      return (await (await apiRequest("GET", `/api/audit?${params}`)).json()) as AuditPage;
    },
    getNextPageParam: (last) => last.nextCursor,
  });
  if (!allowed) return null;
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];

  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-labelledby={`${uid}-heading`}>
      <div className="card-body gap-4 p-4 sm:p-6">
        <div className="flex items-start justify-between gap-2">
          <div className="min-w-0 flex-1">
            <h2 id={`${uid}-heading`} className="card-title text-lg">
              <ScrollText className="h-5 w-5 text-primary" aria-hidden />
              Audit log
            </h2>
            <p className="text-sm opacity-70">Who did what in this organization, when and from which address. Kept for at least a year; nobody can change it.</p>
          </div>
          <button type="button" className="btn btn-ghost btn-sm shrink-0" onClick={() => log.refetch()} disabled={log.isFetching}>
            <RefreshCw className={`h-4 w-4 ${log.isFetching ? "animate-spin" : ""}`} aria-hidden /> Refresh
          </button>
        </div>
        <div className="grid gap-3 sm:grid-cols-2">
          <label className="grid gap-1 text-sm font-medium" htmlFor={`${uid}-action`}>
            Action
            <select id={`${uid}-action`} className="select select-bordered w-full" value={action} onChange={(e) => setAction(e.target.value)}>
              <option value="">All actions</option>
              {Object.entries(AUDIT_ACTIONS).map(([name, label]) => (
                <option key={name} value={name}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label className="grid gap-1 text-sm font-medium" htmlFor={`${uid}-actor`}>
            User
            <select id={`${uid}-actor`} className="select select-bordered w-full" value={actor} onChange={(e) => setActor(e.target.value)}>
              <option value="">Everyone</option>
              {members.data?.members.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.email}
                </option>
              ))}
            </select>
          </label>
        </div>
        {log.isPending ? (
          <p className="text-sm opacity-70" role="status">
            Loading the audit log...
          </p>
        ) : log.isError ? (
          <div role="alert" className="alert alert-error text-sm">
            <span>The audit log could not be loaded: {errorMessage(log.error)}</span>
            <button type="button" className="btn btn-sm" onClick={() => log.refetch()}>
              Try Again
            </button>
          </div>
        ) : entries.length === 0 ? (
          <p className="text-sm opacity-70">{action || actor ? "Nothing recorded for this filter." : "Nothing recorded yet."}</p>
        ) : (
          <ol className="divide-y divide-base-300 rounded-lg border border-base-300" aria-label="Audit records">
            {entries.map((e) => (
              <li key={e.id} className="grid gap-1 p-3 text-sm sm:grid-cols-[11rem_1fr_auto] sm:gap-4">
                <time dateTime={e.at} className="text-xs opacity-70 sm:text-sm">
                  {new Date(e.at).toLocaleString()}
                </time>
                <div className="min-w-0">
                  <p className="font-medium">
                    {actionLabel(e.action)}
                    {e.target && <span className="font-normal break-all"> · {e.target}</span>}
                  </p>
                  <p className="text-xs opacity-70 break-all">
                    {KIND_LABEL[e.actorKind]}: {e.actorLabel}
                    {details(e) && <> · {details(e)}</>}
                  </p>
                </div>
                <p className="text-xs opacity-70 sm:text-right">{e.address ? `from ${e.address}` : ""}</p>
              </li>
            ))}
          </ol>
        )}
        {log.hasNextPage && (
          <button type="button" className="btn btn-outline btn-sm self-start" disabled={log.isFetchingNextPage} onClick={() => log.fetchNextPage()}>
            {log.isFetchingNextPage ? "Loading..." : "Show older"}
          </button>
        )}
      </div>
    </section>
  );
}
