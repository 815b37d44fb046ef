import type { DnsAnalysis } from "../../../src/features/dns/analyze";
import type { MtaStsPolicy } from "../../../src/lib/dns/mta-sts";
import type { MxHostCheck } from "../../../src/lib/dns/transport";
import { StatusBadge } from "../StatusBadge";
import { FindingList } from "./FindingList";

const EXTRAS: { key: keyof DnsAnalysis["extras"]; title: string; what: string }[] = [
  { key: "mx", title: "MX", what: "where your mail is delivered" },
  { key: "mtaSts", title: "MTA-STS", what: "forces encrypted delivery to you" },
  { key: "tlsRpt", title: "TLS-RPT", what: "reports on encrypted delivery" },
  { key: "bimi", title: "BIMI", what: "shows your logo in inboxes" },
  { key: "dnssec", title: "DNSSEC", what: "signs your DNS answers (optional)" },
];

const TLS_WORDS: Record<NonNullable<MxHostCheck["tls"]>["outcome"], string> = { starttls: "STARTTLS", no_starttls: "no STARTTLS", failed: "STARTTLS failed", unchecked: "not checked" };

/** The badge words: DNSSEC is optional, so it reads signed / not signed. */
function badge(key: keyof DnsAnalysis["extras"], status: string): { status: string; label?: string } {
  if (status === "unchecked") return { status, label: "Could not check" };
  if (key === "dnssec") return status === "configured" ? { status: "configured", label: "Signed" } : { status: "unsigned", label: "Not signed" };
  return status === "missing" ? { status: "not set up", label: "Not set up" } : { status };
}

/** What the probes found beside the record: each MX host's STARTTLS, the MTA-STS policy file. */
function ProbeDetails({ name, details }: { name: keyof DnsAnalysis["extras"]; details?: Record<string, unknown> }) {
  const hosts = name === "mx" ? ((details?.hostChecks as MxHostCheck[] | undefined) ?? []) : [];
  const policy = name === "mtaSts" ? (details?.policy as MtaStsPolicy | null | undefined) : null;
  if (!hosts.length && !policy) return null;
  return (
    <ul className="space-y-1 text-xs">
      {hosts.map((h) => (
        <li key={h.host} className="flex flex-wrap gap-x-2 break-all">
          <span className="font-mono">{h.host}</span>
          <span className="opacity-70">{h.addresses.join(", ") || "no address"}</span>
          {h.tls ? <span className="badge badge-ghost badge-sm">{TLS_WORDS[h.tls.outcome]}</span> : null}
          {h.tls?.certificate?.validTo ? <span className="opacity-70">certificate until {h.tls.certificate.validTo.slice(0, 10)}</span> : null}
        </li>
      ))}
      {policy ? (
        <li className="break-all">
          Policy file: mode <span className="font-mono">{policy.mode ?? "?"}</span>, max_age <span className="font-mono">{policy.maxAge ?? "?"}</span>, mx <span className="font-mono">{policy.mx.join(" ") || "none"}</span>
        </li>
      ) : null}
    </ul>
  );
}

/** Extra findings: MX, MTA-STS, TLS-RPT, BIMI and DNSSEC, each a badge with expandable details. */
export function ExtrasResult({ extras }: { extras: DnsAnalysis["extras"] }) {
  return (
    <section className="rounded-box border border-base-300 bg-base-100 p-4" aria-label="Other records">
      <h3 className="font-semibold">Other records</h3>
      <ul className="mt-2 divide-y divide-base-200">
        {EXTRAS.map(({ key, title, what }) => {
          const e = extras[key];
          // an analysis from before a check existed has no entry for it
          if (!e) return null;
          const b = badge(key, e.status);
          return (
            <li key={key} className="py-2">
              <details>
                <summary className="flex cursor-pointer items-center justify-between gap-2 text-sm select-none">
                  <span>
                    <span className="font-medium">{title}</span> <span className="opacity-60">— {what}</span>
                  </span>
                  <StatusBadge status={b.status} label={b.label} />
                </summary>
                <div className="mt-2 space-y-2">
                  {e.recordValue ? <code className="block rounded bg-base-200 px-2 py-1.5 text-xs break-all">{e.recordValue}</code> : null}
                  <ProbeDetails name={key} details={e.details} />
                  <FindingList findings={e.findings} />
                </div>
              </details>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
