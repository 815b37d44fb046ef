import { ArrowLeft, BadgeCheck, Mail, ShieldCheck, ShieldOff, Undo2 } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Link, useParams } from "react-router";
import type { SenderIpView, SenderSampleRecord } from "../../../src/features/reports/contract";
import { roleAllows } from "../../../src/lib/permissions";
import { senderVerdictText } from "../../../src/lib/senders";
import { LazyTrendChart } from "../../components/charts/lazy";
import { CountryLabel } from "../../components/CountryLabel";
import { Panel } from "../../components/Panel";
import { ErrorState, LoadingState } from "../../components/QueryStates";
import { StatCard } from "../../components/StatCard";
import { errorMessage } from "../../lib/api";
import { isSignedIn, useMe } from "../../lib/auth";
import { formatCount, formatPercent, formatRelativeTime, passRateClass } from "../../lib/format";
import { toast } from "../../lib/toast";
import { MarkBadge, PeriodSelect, VERDICT_STYLE } from "../reports/Senders";
import { useMarkSender, useSender, type SenderDetail, type SenderMark } from "./api";
import { ScrollArea } from "../../components/ScrollArea";
import { useDocumentTitle } from "../../lib/title";

const KIND_LABEL: Record<SenderDetail["kind"], string> = { service: "Sending service", domain: "Mail servers of a domain", ip: "A server without reverse DNS" };

/**
 * A sender's page (/app/senders/:key, the key as the Senders view groups: "service:Google",
 * "domain:example.net", "ip:192.0.2.1"): its verdict and the fix in plain words, the mark
 * (approved / not ours, admins and owners), its daily trend, its IPs and recent records.
 */
export default function SenderPage() {
  const { key = "" } = useParams();
  const [days, setDays] = useState<number>(30);
  const sender = useSender(key, days);
  useDocumentTitle(sender.data?.sender);
  return (
    <div className="mx-auto grid w-full min-w-0 max-w-7xl gap-4 sm:gap-6">
      <div>
        <Link to="/app/reports?tab=senders" className="link link-hover inline-flex items-center gap-1 text-sm opacity-80">
          <ArrowLeft className="h-4 w-4" aria-hidden /> Senders
        </Link>
      </div>
      {sender.isPending ? (
        <LoadingState text="Loading sender..." />
      ) : sender.isError || !sender.data ? (
        <div className="card border border-base-300 bg-base-100">
          <ErrorState error={sender.error} onRetry={() => sender.refetch()} />
        </div>
      ) : (
        <SenderView
          detail={sender.data}
          period={<PeriodSelect days={days} onChange={setDays} />}
        />
      )}
    </div>
  );
}

export function SenderView({ detail, period }: { detail: SenderDetail; period?: ReactNode }) {
  const s = detail.summary;
  const style = s ? VERDICT_STYLE[s.verdict] : null;
  return (
    <>
      <header className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h1 className={`text-2xl font-bold sm:text-3xl ${detail.kind === "ip" ? "break-all font-mono" : "break-words"}`}>{detail.sender}</h1>
            <MarkBadge mark={detail.mark} />
          </div>
          <p className="text-sm opacity-70">
            {[s?.serviceType ?? KIND_LABEL[detail.kind], s ? `sends as ${s.domains.join(", ")}` : null].filter(Boolean).join(" · ")}
          </p>
        </div>
        {period}
      </header>

      <section className="card border border-base-300 bg-base-100" aria-label="Verdict">
        <div className="card-body gap-3 p-4 sm:p-5">
          {s && style ? (
            <p className={`flex items-start gap-2 font-medium ${style.className}`} data-verdict={s.verdict}>
              <style.icon className="mt-0.5 h-5 w-5 shrink-0" aria-hidden />
              <span>{senderVerdictText(s)}</span>
            </p>
          ) : (
            <p className="opacity-70">No mail from this sender in the last {detail.days} days.</p>
          )}
          <MarkControls detail={detail} />
        </div>
      </section>

      {s && (
        <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4">
          <StatCard label="Messages" icon={Mail} value={formatCount(s.messages)} footer={<span className="opacity-60">Last {detail.days} days</span>} />
          <StatCard label="DMARC pass rate" icon={ShieldCheck} value={<span className={passRateClass(s.passRate)}>{formatPercent(s.passRate)}</span>} />
          <StatCard label="SPF aligned" icon={BadgeCheck} value={formatPercent(s.spfAlignedRate)} />
          <StatCard label="DKIM aligned" icon={BadgeCheck} value={formatPercent(s.dkimAlignedRate)} />
        </div>
      )}

      <section className="card min-w-0 border border-base-300 bg-base-100 p-4 sm:p-5" aria-label="Daily trend">
        <LazyTrendChart series={detail.trend} title={`Mail from ${detail.sender} per day`} />
      </section>

      <Panel title={`IP addresses (${formatCount(detail.ipCount)})`}>
        {detail.ips.length === 0 ? <p className="text-sm opacity-60">No IP of this sender reported in the period.</p> : <IpTable ips={detail.ips} />}
        {detail.ipCount > detail.ips.length && <p className="text-xs opacity-60">The {formatCount(detail.ips.length)} sending the most mail are shown.</p>}
      </Panel>

      <Panel title="Recent records">
        {detail.samples.length === 0 ? <p className="text-sm opacity-60">No records in the period.</p> : <SampleRecords samples={detail.samples} />}
      </Panel>
    </>
  );
}

const MARK_DONE: Record<string, string> = { approved: "Marked as yours", not_ours: "Marked as not yours", none: "Mark removed" };

/** Approve / not ours / remove the mark; who may is the role table's "senders:mark" (admins and owners). */
function MarkControls({ detail }: { detail: SenderDetail }) {
  const me = useMe();
  const role = isSignedIn(me.data) ? me.data.currentOrg?.role : undefined;
  const mark = useMarkSender(detail.key);
  const canMark = role !== undefined && roleAllows(role, "senders:mark");
  const set = (verdict: SenderMark | null) =>
    mark.mutate(verdict, {
      onSuccess: () => toast({ title: MARK_DONE[verdict ?? "none"], description: `${detail.sender}: the verdicts, threats and tasks now follow your mark.`, variant: "success" }),
      onError: (error) => toast({ title: "Could not save the mark", description: errorMessage(error), variant: "destructive" }),
    });
  const explanation =
    detail.mark === "approved"
      ? "You marked this sender as yours: its failing mail counts as a set-up task, not a threat."
      : detail.mark === "not_ours"
        ? "You marked this sender as not yours: its mail is shown as spoofing and its servers as threats."
        : "Is this sender yours? Approve it to treat its failures as set-up work, or mark it as not yours to treat all its mail as spoofing.";
  return (
    <div className="flex flex-col gap-2 border-t border-base-300 pt-3">
      <p className="text-sm opacity-80">{explanation}</p>
      {canMark ? (
        <div className="flex flex-wrap gap-2" role="group" aria-label="Mark this sender">
          <button type="button" className="btn btn-sm btn-success" disabled={mark.isPending || detail.mark === "approved"} onClick={() => set("approved")}>
            <BadgeCheck className="h-4 w-4" aria-hidden /> Approve — it's ours
          </button>
          <button type="button" className="btn btn-sm btn-error btn-outline" disabled={mark.isPending || detail.mark === "not_ours"} onClick={() => set("not_ours")}>
            <ShieldOff className="h-4 w-4" aria-hidden /> Not ours
          </button>
          {detail.mark && (
            <button type="button" className="btn btn-sm btn-ghost" disabled={mark.isPending} onClick={() => set(null)}>
              <Undo2 className="h-4 w-4" aria-hidden /> Remove mark
            </button>
          )}
        </div>
      ) : (
        role && <p className="text-xs opacity-60">Admins and owners of the organization can mark senders.</p>
      )}
    </div>
  );
}

const Label = ({ children }: { children: string }) => <span className="mr-2 text-xs font-normal uppercase text-base-content/70 sm:hidden">{children}</span>;

function IpTable({ ips }: { ips: SenderIpView[] }) {
  return (
    <ScrollArea label="IP addresses table" className="min-w-0">
      <table className="table table-sm">
        <thead className="hidden sm:table-header-group">
          <tr>
            <th>IP address</th>
            <th>Country</th>
            <th className="text-right">Messages</th>
            <th>Pass rate</th>
            <th>SPF / DKIM aligned</th>
            <th>Last seen</th>
          </tr>
        </thead>
        <tbody>
          {ips.map((ip) => (
            <tr key={ip.ip} className="block border-b border-base-300 py-2 sm:table-row sm:py-0" data-ip={ip.ip}>
              <td className="block sm:table-cell">
                <div className="break-all font-mono text-sm font-medium">{ip.ip}</div>
                <div className="break-all text-xs opacity-60">{ip.ptr ?? "No reverse DNS"}</div>
              </td>
              <td className="block sm:table-cell">
                <Label>Country</Label>
                <CountryLabel code={ip.country} className="text-sm" />
              </td>
              <td className="block tabular-nums sm:table-cell sm:text-right">
                <Label>Messages</Label>
                {formatCount(ip.messages)}
              </td>
              <td className={`block font-semibold tabular-nums sm:table-cell ${passRateClass(ip.passRate)}`}>
                <Label>Pass rate</Label>
                {formatPercent(ip.passRate)}
              </td>
              <td className="block text-sm tabular-nums sm:table-cell">
                <Label>Aligned</Label>
                <span className="mr-2 whitespace-nowrap">SPF {formatPercent(ip.spfAlignedRate)}</span>
                <span className="whitespace-nowrap">DKIM {formatPercent(ip.dkimAlignedRate)}</span>
              </td>
              <td className="block text-sm sm:table-cell">
                <Label>Last seen</Label>
                <span className="opacity-70">{formatRelativeTime(ip.lastSeen)}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}

const results = (list: { domain: string; result: string; selector?: string | null; scope?: string | null }[]) =>
  list.length === 0 ? "none" : list.map((r) => `${r.domain}${r.selector ? ` (${r.selector})` : r.scope ? ` (${r.scope})` : ""}: ${r.result}`).join(", ");

function SampleRecords({ samples }: { samples: SenderSampleRecord[] }) {
  return (
    <ul className="grid gap-3">
      {samples.map((r, i) => (
        <li key={`${r.reportId}-${r.sourceIp}-${i}`} className="rounded-box border border-base-300 p-3 text-sm" data-sample>
          <div className="flex flex-wrap items-baseline justify-between gap-2">
            <span className="font-medium">
              {formatCount(r.count)} {r.count === 1 ? "message" : "messages"} as <span className="font-mono">{r.headerFrom ?? r.policyDomain}</span>
            </span>
            <span className="text-xs opacity-60">
              {new Date(r.dateBegin).toISOString().slice(0, 10)} · reported by {r.reporter}
            </span>
          </div>
          <div className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
            <span className="font-mono">{r.sourceIp}</span>
            <CountryLabel code={r.country} />
            <span className={r.dmarcPass ? "text-success" : "text-error"}>DMARC {r.dmarcPass ? "pass" : "fail"}</span>
            <span>Disposition {r.disposition}</span>
          </div>
          <dl className="mt-2 grid gap-1 text-xs sm:grid-cols-[auto_1fr] sm:gap-x-3">
            <dt className="opacity-60">DKIM {r.dkimAligned === "pass" ? "aligned" : "not aligned"}</dt>
            <dd className="break-all font-mono">{results(r.dkimResults)}</dd>
            <dt className="opacity-60">SPF {r.spfAligned === "pass" ? "aligned" : "not aligned"}</dt>
            <dd className="break-all font-mono">{results(r.spfResults)}</dd>
            {r.envelopeFrom && (
              <>
                <dt className="opacity-60">Envelope from</dt>
                <dd className="break-all font-mono">{r.envelopeFrom}</dd>
              </>
            )}
          </dl>
        </li>
      ))}
    </ul>
  );
}
