import { useQuery } from "@tanstack/react-query";
import { Globe2, MailWarning, ShieldAlert, Waypoints } from "lucide-react";
import { useRef, useState } from "react";
import { THREAT_MAP_RANGES, type ThreatCountries, type ThreatMapRange } from "../../../src/features/dashboard/contract";
import { LazyWorldMap } from "../../components/charts/lazy";
import { ErrorState } from "../../components/QueryStates";
import { useOverflows } from "../../components/ScrollArea";
import { StatCard } from "../../components/StatCard";
import { ThreatList } from "../../components/ThreatList";
import { errorMessage } from "../../lib/api";
import { formatCount } from "../../lib/format";
import { useThreats, type IpThreat } from "../dashboard/api";
import { Panel } from "../../components/Panel";
import { ErrorCard, footingOf, LoadingRows, NothingToJudge } from "../dashboard/sections";
import { useDomains } from "../domains/api";
import { CountryLabel } from "../../components/CountryLabel";
import { byCountry } from "./countries";

function CountryBreakdown({ threats }: { threats: IpThreat[] }) {
  const countries = byCountry(threats);
  const max = Math.max(1, ...countries.map((c) => c.attempts));
  const list = useRef<HTMLUListElement>(null);
  const scrolls = useOverflows(list);
  if (countries.length === 0) return <p className="py-6 text-center text-sm opacity-60">No failing mail from any country in the last 24 hours.</p>;
  return (
    <ul ref={list} tabIndex={scrolls ? 0 : undefined} className="grid max-h-96 gap-3 overflow-y-auto pr-1" aria-label="Attempts by country">
      {countries.map((c) => (
        <li key={c.country} data-country={c.country}>
          <div className="flex items-baseline justify-between gap-2 text-sm">
            <CountryLabel code={c.countryCode} name={c.country} className="font-medium" />
            <span className="shrink-0 tabular-nums">
              <span className="font-semibold">{formatCount(c.attempts)}</span>
              <span className="text-xs opacity-60">
                {" "}
                · {c.sources} {c.sources === 1 ? "source" : "sources"}
                {c.high > 0 ? ` · ${c.high} high` : ""}
              </span>
            </span>
          </div>
          <div className="mt-1 h-2 w-full overflow-hidden rounded-full bg-base-200" aria-hidden>
            <div className={`h-full rounded-full ${c.high > 0 ? "bg-error" : "bg-warning"}`} style={{ width: `${Math.max(2, (c.attempts / max) * 100)}%` }} />
          </div>
        </li>
      ))}
    </ul>
  );
}

const RANGE_LABELS: Record<ThreatMapRange, string> = { "24h": "Last 24h", "7d": "7 days", "30d": "30 days" };
const RANGE_WORDS: Record<ThreatMapRange, string> = { "24h": "today and yesterday (UTC)", "7d": "the last 7 days", "30d": "the last 30 days" };

export const useThreatCountries = (range: ThreatMapRange) => useQuery<ThreatCountries>({ queryKey: [`/api/threats/countries?range=${range}`] });

/** The world map of failing messages by country, over the chosen range (SPEC's "Last 24h" first). */
export function ThreatMap() {
  const [range, setRange] = useState<ThreatMapRange>("24h");
  const countries = useThreatCountries(range);
  const data = countries.data;
  const total = data ? Object.values(data.counts).reduce((a, b) => a + b, 0) : 0;
  return (
    <Panel
      title="Failing mail by country"
      action={
        <div className="join" role="group" aria-label="Map range">
          {THREAT_MAP_RANGES.map((r) => (
            <button key={r} type="button" className={`btn join-item btn-sm ${r === range ? "btn-active btn-primary" : ""}`} aria-pressed={r === range} onClick={() => setRange(r)}>
              {RANGE_LABELS[r]}
            </button>
          ))}
        </div>
      }
    >
      {countries.isPending ? (
        <div className="skeleton aspect-[960/440] w-full" role="status" aria-label="Loading map" />
      ) : countries.isError || !data ? (
        <ErrorState error={countries.error} onRetry={() => countries.refetch()} />
      ) : (
        <>
          <LazyWorldMap counts={data.counts} label={`Failing messages by country, ${RANGE_WORDS[range]}`} />
          <p className="text-xs opacity-60">
            {total + data.unlocated === 0
              ? `No failing mail reported for ${RANGE_WORDS[range]}.`
              : `${formatCount(total + data.unlocated)} failing ${total + data.unlocated === 1 ? "message" : "messages"} reported for ${RANGE_WORDS[range]}${data.unlocated ? `, ${formatCount(data.unlocated)} from IPs that could not be located` : ""}. Reports count on the UTC day their period begins.`}
          </p>
        </>
      )}
    </Panel>
  );
}

/** SPEC §2 Threat Map: where DMARC-failing mail came from in the last 24 hours, by country and by source IP. */
export default function ThreatsPage() {
  const threats = useThreats();
  const footing = footingOf(useDomains().data);
  const list = threats.data ?? [];
  const attempts = list.reduce((s, t) => s + t.attemptCount, 0);
  const delivered = list.reduce((s, t) => s + (t.deliveredCount ?? 0), 0);
  const high = list.filter((t) => t.threatLevel === "high").length;
  const countries = new Set(list.map((t) => t.country)).size;

  return (
    <div className="mx-auto grid max-w-7xl gap-4 sm:gap-6">
      <header>
        <h1 className="text-2xl font-bold sm:text-3xl">Threat Map</h1>
        <p className="text-sm opacity-70">Servers that sent mail as your domains and failed DMARC in the last 24 hours, from your aggregate reports.</p>
      </header>
      {threats.isPending ? (
        <LoadingRows rows={4} />
      ) : threats.isError ? (
        <div className="card border border-base-300 bg-base-100">
          <ErrorCard onRetry={() => threats.refetch()} detail={errorMessage(threats.error)} />
        </div>
      ) : (
        <>
          <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4">
            <StatCard label="Failing sources" icon={Waypoints} value={formatCount(list.length)} footer={<span className="opacity-60">Last 24h</span>} />
            <StatCard label="Failed messages" icon={MailWarning} value={formatCount(attempts)} footer={<span className="opacity-60">{formatCount(delivered)} delivered anyway</span>} />
            <StatCard label="High threats" icon={ShieldAlert} value={formatCount(high)} footer={<span className="opacity-60">100+ attempts or 20+ delivered</span>} />
            <StatCard label="Countries" icon={Globe2} value={formatCount(countries)} footer={<span className="opacity-60">Last 24h</span>} />
          </div>
          <ThreatMap />
          <div className="grid gap-4 sm:gap-6 lg:grid-cols-5">
            <Panel title="By country, last 24h" className="lg:col-span-2">
              <CountryBreakdown threats={list} />
            </Panel>
            <div className="min-w-0 lg:col-span-3">
              <ThreatList threats={list} title="IP Threats" empty={footing === "ready" ? undefined : <NothingToJudge footing={footing} />} />
            </div>
          </div>
          <p className="text-xs opacity-60">
            Threat level: high = 100 or more failing messages, or 20 or more delivered anyway; medium = 10 or more, or any delivered; low = a few, all quarantined or rejected. Sources recognized as a sending service
            (Google, SendGrid, …) are one level lower: most often your own service not yet authenticated. Senders you approved are left out (their failures are set-up tasks); senders you marked as not yours are never lowered. IP geolocation by DB-IP (db-ip.com), CC BY 4.0.
          </p>
        </>
      )}
    </div>
  );
}
