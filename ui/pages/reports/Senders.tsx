import { useQuery } from "@tanstack/react-query";
import { ShieldAlert, ShieldCheck, ShieldX, Send, Wrench, Skull } from "lucide-react";
import { useId, useState } from "react";
import { Link } from "react-router";
import type { SenderSummary, SenderVerdict } from "../../../src/features/reports/contract";
import { senderVerdictText } from "../../../src/lib/senders";
import { formatCount, formatPercent, formatRelativeTime, passRateClass } from "../../lib/format";
import { useDomains } from "../domains/api";
import { ErrorState, LoadingState } from "../../components/QueryStates";
import { rereadWhileUnnamed } from "../../lib/naming";

export type { SenderSummary };

/** The periods the Senders tab offers, in days. */
export const SENDER_PERIODS = [7, 30, 90] as const;

/** GET /api/senders?days=&domain= (the default query function joins the key into the URL); read again while it lists addresses with no name (ui/lib/naming.ts). */
export function useSenders(days: number, domain: string) {
  const query = new URLSearchParams({ days: String(days), ...(domain ? { domain } : {}) });
  return useQuery<SenderSummary[]>({ queryKey: [`/api/senders?${query}`], refetchInterval: rereadWhileUnnamed((s: SenderSummary) => s.kind === "ip") });
}

export const VERDICT_STYLE: Record<SenderVerdict, { icon: typeof ShieldCheck; className: string }> = {
  authenticated: { icon: ShieldCheck, className: "text-pass-green" },
  partly: { icon: ShieldAlert, className: "text-pass-orange" },
  failing: { icon: ShieldX, className: "text-pass-red" },
  setup: { icon: Wrench, className: "text-pass-orange" },
  spoofing: { icon: Skull, className: "text-pass-red" },
};

/** The sender page of a sender key. */
export const senderPath = (key: string) => `/app/senders/${encodeURIComponent(key)}`;

/** The user's mark as a small badge. */
export function MarkBadge({ mark }: { mark: SenderSummary["mark"] }) {
  if (!mark) return null;
  return mark === "approved" ? <span className="badge badge-success badge-sm whitespace-nowrap">Approved</span> : <span className="badge badge-error badge-sm whitespace-nowrap">Not ours</span>;
}

/** The Period choice of the sender screens (SENDER_PERIODS). */
export function PeriodSelect({ days, onChange }: { days: number; onChange: (days: number) => void }) {
  const id = useId();
  return (
    <label htmlFor={id} className="flex items-center gap-2 text-sm">
      Period
      <select id={id} className="select select-sm w-auto" value={days} onChange={(e) => onChange(Number(e.target.value))}>
        {SENDER_PERIODS.map((d) => (
          <option key={d} value={d}>
            Last {d} days
          </option>
        ))}
      </select>
    </label>
  );
}

/** Senders tab: which services and servers send as the organisation's domains, and whether they are authenticated. */
export function SendersView() {
  const uid = useId();
  const [days, setDays] = useState<number>(30);
  const [domain, setDomain] = useState("");
  const domains = useDomains();
  const names = (domains.data ?? []).map((d) => d.name).sort();
  const senders = useSenders(days, domain);
  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-label="Senders">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-base-300 px-4 py-3">
        <h2 className="font-semibold">Who sends as you</h2>
        <div className="flex flex-wrap items-center gap-3">
          {names.length > 1 && (
            <label htmlFor={`${uid}-domain`} className="flex items-center gap-2 text-sm">
              Domain
              <select id={`${uid}-domain`} className="select select-sm w-auto" value={domain} onChange={(e) => setDomain(e.target.value)}>
                <option value="">All domains</option>
                {names.map((d) => (
                  <option key={d} value={d}>
                    {d}
                  </option>
                ))}
              </select>
            </label>
          )}
          <PeriodSelect days={days} onChange={setDays} />
        </div>
      </div>
      {senders.isPending ? (
        <LoadingState text="Loading senders..." />
      ) : senders.isError || !senders.data ? (
        <ErrorState error={senders.error} onRetry={() => senders.refetch()} />
      ) : senders.data.length === 0 ? (
        <EmptySenders days={days} />
      ) : (
        <SenderTable senders={senders.data} />
      )}
    </section>
  );
}

function EmptySenders({ days }: { days: number }) {
  return (
    <div className="flex flex-col items-center gap-2 p-10 text-center">
      <Send className="h-10 w-10 opacity-40" aria-hidden />
      <p className="font-medium">No senders seen yet</p>
      <p className="text-sm opacity-70">No aggregate report covers the last {days} days yet: once mailbox providers report on your domains, every service and server sending as you shows up here.</p>
    </div>
  );
}

const Label = ({ children }: { children: string }) => <span className="mr-2 text-xs font-normal uppercase text-base-content/70 sm:hidden">{children}</span>;

/** Senders, most mail first; below 640 px each row stacks into a card. */
export function SenderTable({ senders }: { senders: SenderSummary[] }) {
  return (
    <table className="table">
      <thead className="hidden sm:table-header-group">
        <tr>
          <th>Sender</th>
          <th className="text-right">Messages</th>
          <th>Pass Rate</th>
          <th className="hidden lg:table-cell">Aligned</th>
          <th className="hidden md:table-cell">Domains</th>
          <th>Last Seen</th>
        </tr>
      </thead>
      <tbody>
        {senders.map((s) => {
          const { icon: Icon, className } = VERDICT_STYLE[s.verdict];
          return (
            <tr key={s.key} className="block border-b border-base-300 py-2 sm:table-row sm:py-0" data-verdict={s.verdict} data-sender={s.key}>
              <td className="block pb-1 sm:table-cell sm:min-w-72 sm:pb-3">
                <div className="flex flex-wrap items-center gap-2">
                  <Link to={senderPath(s.key)} className={`link link-hover font-medium ${s.kind === "ip" ? "break-all font-mono text-sm" : "break-words"}`}>
                    {s.sender}
                  </Link>
                  <MarkBadge mark={s.mark} />
                </div>
                <div className="text-xs opacity-60">
                  {[s.serviceType ?? (s.kind === "ip" ? "Unknown server" : s.kind === "domain" ? "Mail server" : null), `${formatCount(s.ips)} ${s.ips === 1 ? "IP" : "IPs"}`, s.countries.join(", ")].filter(Boolean).join(" · ")}
                </div>
                <p className={`mt-1 flex items-start gap-1 text-sm ${className}`}>
                  <Icon className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
                  <span>{senderVerdictText(s)}</span>
                </p>
              </td>
              <td className="block py-1 tabular-nums sm:table-cell sm:py-3 sm:text-right">
                <Label>Messages</Label>
                {formatCount(s.messages)}
              </td>
              <td className="block py-1 sm:table-cell sm:py-3">
                <div className="flex items-center gap-2">
                  <Label>Pass rate</Label>
                  <div className={`h-2 w-24 shrink-0 overflow-hidden rounded-full bg-base-300 ${passRateClass(s.passRate)}`} role="meter" aria-label={`Pass rate of ${s.sender}`} aria-valuenow={s.passRate} aria-valuemin={0} aria-valuemax={100}>
                    <div className="h-full rounded-full bg-current" style={{ width: `${s.passRate}%` }} />
                  </div>
                  <span className={`font-semibold tabular-nums ${passRateClass(s.passRate)}`}>{formatPercent(s.passRate)}</span>
                </div>
              </td>
              <td className="block py-1 text-sm tabular-nums sm:py-3 lg:table-cell sm:hidden">
                <Label>Aligned</Label>
                <span className="mr-2 inline-block whitespace-nowrap">SPF {formatPercent(s.spfAlignedRate)}</span>
                <span className="inline-block whitespace-nowrap">DKIM {formatPercent(s.dkimAlignedRate)}</span>
              </td>
              <td className="block py-1 font-mono text-sm sm:py-3 md:table-cell sm:hidden">
                <Label>Domains</Label>
                {s.domains.join(", ")}
              </td>
              <td className="block pt-1 text-sm sm:table-cell sm:py-3">
                <Label>Last seen</Label>
                <span className="opacity-70">{formatRelativeTime(s.lastSeen)}</span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
