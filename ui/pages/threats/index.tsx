import { Globe2, MailWarning, ShieldAlert, Waypoints } from "lucide-react";
import { StatCard } from "../../components/StatCard";
import { ThreatList } from "../../components/ThreatList";
import { errorMessage } from "../../lib/api";
import { formatCount } from "../../lib/format";
import { useThreats, type IpThreat } from "../dashboard/api";
import { Panel } from "../../components/Panel";
import { ErrorCard, LoadingRows } from "../dashboard/sections";
import { CountryLabel } from "../../components/CountryLabel";
import { byCountry } from "./countries";

function CountryBreakdown({ threats }: { threats: IpThreat[] }) {
  const countries = byCountry(threats);
  const max = Math.max(1, ...countries.map((c) => c.attempts));
  if (countries.length === 0) return <p className="py-6 text-center text-sm opacity-60">No failing mail from any country in the last 24 hours.</p>;
  return (
    <ul className="grid max-h-96 gap-3 overflow-y-auto pr-1" aria-label="Attempts by country">
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

/** SPEC §2 Threat Map: where DMARC-failing mail came from in the last 24 hours, by country and by source IP. */
export default function ThreatsPage() {
  const threats = useThreats();
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
          <div className="grid gap-4 sm:gap-6 lg:grid-cols-5">
            <Panel title="By country" className="lg:col-span-2">
              <CountryBreakdown threats={list} />
            </Panel>
            <div className="min-w-0 lg:col-span-3">
              <ThreatList threats={list} title="IP Threats" />
            </div>
          </div>
          <p className="text-xs opacity-60">
            Threat level: high = 100 or more failing messages, or 20 or more delivered anyway; medium = 10 or more, or any delivered; low = a few, all quarantined or rejected. Sources recognised as a sending service
            (Google, SendGrid, …) are one level lower: most often your own service not yet authenticated. IP geolocation by DB-IP (db-ip.com), CC BY 4.0.
          </p>
        </>
      )}
    </div>
  );
}
