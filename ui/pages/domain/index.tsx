import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeft, ArrowRight, Download, History, RefreshCw } from "lucide-react";
import { useState } from "react";
import { Link, useParams } from "react-router";
import type { DomainCheckView } from "../../../src/features/domains/contract";
import type { DomainHistory, DomainOverview, HistoryChange, HistoryEntry } from "../../../src/features/domains/page";
import type { TopSources } from "../../../src/features/trends/contract";
import { CountryLabel } from "../../components/CountryLabel";
import { checkFailed, OverallStatusBadge } from "../../components/DomainStatusTable";
import { LookupResults } from "../../components/DnsLookupTool";
import { Panel } from "../../components/Panel";
import { DomainReportPath } from "../../components/ReportPath";
import { ErrorState, LoadingState } from "../../components/QueryStates";
import { StatusBadge } from "../../components/StatusBadge";
import { TrendPanel } from "../../components/TrendPanel";
import { apiRequest, errorMessage } from "../../lib/api";
import { formatCount, formatPercent, formatRelativeTime, passRateClass } from "../../lib/format";
import { toast } from "../../lib/toast";
import { DOMAINS_KEY } from "../domains/api";
import { enforcementKey, ReadinessPanel, SourcesPanel, sourcesKey, SpfUsagePanel } from "./Readiness";
import { ScrollArea } from "../../components/ScrollArea";
import { useDocumentTitle } from "../../lib/title";

const RECORD_NAMES: Record<HistoryChange["record"], string> = { dmarc: "DMARC", spf: "SPF", dkim: "DKIM" };
const dateTime = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC", timeZoneName: "short" });

const overviewKey = (id: string) => [`/api/domains/${encodeURIComponent(id)}`];
const historyKey = (id: string) => [`/api/domains/${encodeURIComponent(id)}/history?limit=50`];

/** /app/domains/:id: one domain's records, status, trend, top sources and DNS change history. */
export default function DomainPage({ now }: { now?: Date }) {
  const { id = "" } = useParams();
  const overview = useQuery<DomainOverview>({ queryKey: overviewKey(id) });
  useDocumentTitle(overview.data?.domain.name);
  if (overview.isPending) return <LoadingState text="Loading domain..." />;
  if (overview.isError) {
    return (
      <div className="mx-auto grid max-w-6xl gap-4">
        <BackLink />
        <section className="card border border-base-300 bg-base-100">
          <ErrorState error={overview.error} onRetry={() => overview.refetch()} />
        </section>
      </div>
    );
  }
  const { domain } = overview.data;
  return (
    <div className="mx-auto grid max-w-6xl gap-4 sm:gap-6">
      <BackLink />
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="flex flex-wrap items-center gap-2 text-2xl font-bold break-all sm:text-3xl">
            {domain.name} <OverallStatusBadge domain={domain} now={now} />
          </h1>
          <p className="mt-1 text-sm opacity-70">
            {checkFailed(domain) && domain.checkFailedAt
              ? `DNS check failed ${formatRelativeTime(domain.checkFailedAt, now).toLowerCase()} (DNS server did not answer)${domain.lastCheckedAt ? `; last good check ${formatRelativeTime(domain.lastCheckedAt, now).toLowerCase()}` : ""}`
              : domain.lastCheckedAt
                ? `DNS checked ${formatRelativeTime(domain.lastCheckedAt, now).toLowerCase()}`
                : "DNS not checked yet"}{" "}
            ·{" "}
            {domain.lastReportAt ? `last report ${formatRelativeTime(domain.lastReportAt, now)}` : "no reports yet"}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <CheckNow id={domain.id} />
          <a className="btn btn-outline bg-base-100" href={`/api/records.csv?days=30&domain=${encodeURIComponent(domain.name)}`} download data-csv-download>
            <Download className="h-4 w-4" aria-hidden /> Download CSV (30 days)
          </a>
        </div>
      </header>

      <div className="grid grid-cols-1 gap-3 sm:grid-cols-3" role="region" aria-label="Statuses">
        {(
          [
            ["DMARC policy", domain.dmarcPolicy],
            ["SPF", domain.spfStatus],
            ["DKIM", domain.dkimStatus],
          ] as const
        ).map(([label, status]) => (
          <div key={label} className="card border border-base-300 bg-base-100">
            <div className="card-body flex-row items-center justify-between p-4">
              <span className="text-sm font-medium">{label}</span>
              <StatusBadge status={status ?? "pending"} />
            </div>
          </div>
        ))}
      </div>

      <ReadinessPanel id={domain.id} />

      <div id="report-path" className="scroll-mt-24">
        <Panel title="Where reports go">
          <DomainReportPath domain={domain.name} />
        </Panel>
      </div>

      <TrendPanel domain={domain.name} title="Compliance Trend" now={now} />

      <div className="grid gap-4 sm:gap-6 lg:grid-cols-2">
        <Panel title="Current Records">
          {overview.data.analysisError ? (
            <p role="status" className="text-sm text-warning">
              {overview.data.analysisError}
            </p>
          ) : null}
          {overview.data.analysis ? <LookupResults result={overview.data.analysis} compact /> : null}
          <p className="text-sm">
            <span className="font-medium">DKIM selectors seen in reports:</span>{" "}
            {overview.data.selectorsSeen.length ? overview.data.selectorsSeen.join(", ") : <span className="opacity-70">none yet</span>}
          </p>
        </Panel>
        <TopSourcesPanel domain={domain.name} />
      </div>

      <div className="grid gap-4 sm:gap-6 lg:grid-cols-2">
        <SourcesPanel id={domain.id} />
        <SpfUsagePanel id={domain.id} />
      </div>

      <HistoryPanel id={domain.id} />
    </div>
  );
}

function BackLink() {
  return (
    <Link to="/app/domains" className="btn btn-ghost btn-sm w-fit gap-1 px-2">
      <ArrowLeft className="h-4 w-4" aria-hidden /> Domains
    </Link>
  );
}

/** "Check now": POST /api/domains/:id/check, then the page shows the new statuses and history. */
function CheckNow({ id }: { id: string }) {
  const client = useQueryClient();
  const check = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", `/api/domains/${encodeURIComponent(id)}/check`)).json()) as DomainCheckView,
    onSuccess: (result) => {
      const changes = result.events?.length ?? 0;
      toast({ title: "DNS checked", description: changes ? `${changes} change${changes === 1 ? "" : "s"} found: ${result.events.map((e) => e.title).join("; ")}` : "The records are as they were.", variant: "success" });
      client.invalidateQueries({ queryKey: overviewKey(id) });
      client.invalidateQueries({ queryKey: historyKey(id) });
      client.invalidateQueries({ queryKey: enforcementKey(id) });
      client.invalidateQueries({ queryKey: sourcesKey(id) });
      client.invalidateQueries({ queryKey: DOMAINS_KEY });
    },
    onError: (error) => toast({ title: "Check failed", description: errorMessage(error), variant: "destructive" }),
  });
  return (
    <button type="button" className="btn btn-primary" onClick={() => check.mutate()} disabled={check.isPending}>
      <RefreshCw className={`h-4 w-4 ${check.isPending ? "animate-spin" : ""}`} aria-hidden /> {check.isPending ? "Checking..." : "Check now"}
    </button>
  );
}

function TopSourcesPanel({ domain }: { domain: string }) {
  const sources = useQuery<TopSources>({ queryKey: [`/api/trends/sources?days=30&limit=10&domain=${encodeURIComponent(domain)}`] });
  return (
    <Panel title="Top Sources (30 days)">
      {sources.isPending ? (
        <LoadingState text="Loading sources..." />
      ) : sources.isError ? (
        <ErrorState error={sources.error} onRetry={() => sources.refetch()} />
      ) : sources.data.sources.length === 0 ? (
        <p className="py-6 text-center text-sm opacity-70">No mail reported for this domain in the last 30 days.</p>
      ) : (
        <ScrollArea label="Mail sources table">
          <table className="table table-sm">
            <thead>
              <tr>
                <th>Source</th>
                <th className="text-right">Messages</th>
                <th className="text-right">Pass rate</th>
              </tr>
            </thead>
            <tbody>
              {sources.data.sources.map((s) => {
                const rate = s.messages ? (s.passed / s.messages) * 100 : 0;
                return (
                  <tr key={s.sourceIp} data-source-ip={s.sourceIp}>
                    <td className="min-w-0">
                      <span className="block font-mono text-xs break-all">{s.sourceIp}</span>
                      <CountryLabel code={s.country} className="text-xs opacity-80" />
                    </td>
                    <td className="text-right tabular-nums">{formatCount(s.messages)}</td>
                    <td className={`text-right tabular-nums ${passRateClass(rate)}`}>{formatPercent(rate)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </Panel>
  );
}

function HistoryPanel({ id }: { id: string }) {
  const first = useQuery<DomainHistory>({ queryKey: historyKey(id) });
  const [older, setOlder] = useState<HistoryEntry[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const cursor = nextBefore === undefined ? first.data?.nextBefore ?? null : nextBefore;
  const loadMore = async () => {
    if (!cursor) return;
    setLoading(true);
    try {
      const res = await apiRequest("GET", `/api/domains/${encodeURIComponent(id)}/history?limit=50&before=${encodeURIComponent(cursor)}`);
      const page = (await res.json()) as DomainHistory;
      setOlder((list) => [...list, ...page.items]);
      setNextBefore(page.nextBefore);
    } catch (error) {
      toast({ title: "Could not load older changes", description: errorMessage(error), variant: "destructive" });
    } finally {
      setLoading(false);
    }
  };
  return (
    <Panel title="DNS Change History">
      {first.isPending ? (
        <LoadingState text="Loading history..." />
      ) : first.isError ? (
        <ErrorState error={first.error} onRetry={() => first.refetch()} />
      ) : first.data.items.length === 0 ? (
        <div className="flex flex-col items-center gap-2 py-6 text-center text-sm">
          <History className="h-8 w-8 opacity-40" aria-hidden />
          <p className="opacity-70">No DNS checks yet. Use “Check now” to read the records; every change found afterwards is listed here.</p>
        </div>
      ) : (
        <>
          <ol className="relative grid gap-4 border-l border-base-300 pl-5" aria-label="DNS changes, newest first">
            {[...first.data.items, ...older].map((entry) => (
              <HistoryItem key={entry.id} entry={entry} />
            ))}
          </ol>
          {cursor ? (
            <button type="button" className="btn btn-outline btn-sm w-fit" onClick={loadMore} disabled={loading}>
              {loading ? "Loading..." : "Show older changes"}
            </button>
          ) : null}
        </>
      )}
    </Panel>
  );
}

function HistoryItem({ entry }: { entry: HistoryEntry }) {
  return (
    <li className="relative grid gap-2" data-history-entry={entry.checkedAt}>
      <span className="absolute -left-[1.65rem] top-1.5 h-2.5 w-2.5 rounded-full bg-primary ring-4 ring-base-100" aria-hidden />
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <time dateTime={entry.checkedAt} className="font-medium">
          {dateTime.format(new Date(entry.checkedAt))}
        </time>
        {entry.first ? (
          <span className="opacity-70">First check: </span>
        ) : entry.overallBefore !== entry.overallAfter ? (
          <span className="flex items-center gap-1" aria-label={`Status ${entry.overallBefore} to ${entry.overallAfter}`}>
            <StatusBadge status={entry.overallBefore ?? "pending"} /> <ArrowRight className="h-3 w-3" aria-hidden /> <StatusBadge status={entry.overallAfter} />
          </span>
        ) : null}
        {entry.first ? <StatusBadge status={entry.overallAfter} /> : null}
      </div>
      <ul className="grid gap-2">
        {entry.changes.map((c) => (
          <li key={c.record} className="rounded-box border border-base-300 p-3 text-sm" data-change={c.record}>
            <div className="mb-1 flex flex-wrap items-center gap-2">
              <span className="font-semibold">{RECORD_NAMES[c.record]}</span>
              {c.statusBefore !== null && c.statusBefore !== c.statusAfter ? (
                <>
                  <StatusBadge status={c.statusBefore} /> <ArrowRight className="h-3 w-3" aria-hidden />
                </>
              ) : null}
              <StatusBadge status={c.statusAfter} />
            </div>
            {entry.first ? (
              <RecordValue label="Record" value={c.after} />
            ) : c.before === c.after ? (
              <p className="text-xs opacity-70">Record unchanged; its status changed.</p>
            ) : (
              <div className="grid gap-1">
                <RecordValue label="Before" value={c.before} tone="before" />
                <RecordValue label="After" value={c.after} tone="after" />
              </div>
            )}
          </li>
        ))}
      </ul>
    </li>
  );
}

function RecordValue({ label, value, tone }: { label: string; value: string | null; tone?: "before" | "after" }) {
  const colour = tone === "before" ? "bg-error/10" : tone === "after" ? "bg-success/10" : "bg-base-200";
  return (
    <div className="grid gap-0.5 sm:grid-cols-[4rem_1fr] sm:items-start">
      <span className="text-xs opacity-70">{label}</span>
      <code className={`rounded px-1.5 py-0.5 font-mono text-xs break-all whitespace-pre-wrap ${colour}`}>{value ?? "(no record)"}</code>
    </div>
  );
}
