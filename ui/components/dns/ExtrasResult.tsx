import type { DnsAnalysis } from "../../../src/features/dns/analyze";
import { StatusBadge } from "../StatusBadge";
import { FindingList } from "./FindingList";

const EXTRAS: { key: keyof DnsAnalysis["extras"]; title: string; what: string }[] = [
  { key: "mx", title: "MX", what: "where your mail is delivered" },
  { key: "mtaSts", title: "MTA-STS", what: "forces encrypted delivery to you" },
  { key: "tlsRpt", title: "TLS-RPT", what: "reports on encrypted delivery" },
  { key: "bimi", title: "BIMI", what: "shows your logo in inboxes" },
];

/** Extra findings: MX, MTA-STS, TLS-RPT and BIMI, each a badge with expandable details. */
export function ExtrasResult({ extras }: { extras: DnsAnalysis["extras"] }) {
  return (
    <section className="rounded-box border border-base-300 bg-base-100 p-4" aria-label="Other records">
      <h3 className="font-semibold">Other records</h3>
      <ul className="mt-2 divide-y divide-base-200">
        {EXTRAS.map(({ key, title, what }) => {
          const e = extras[key];
          return (
            <li key={key} className="py-2">
              <details>
                <summary className="flex cursor-pointer items-center justify-between gap-2 text-sm select-none">
                  <span>
                    <span className="font-medium">{title}</span> <span className="opacity-60">— {what}</span>
                  </span>
                  <StatusBadge status={e.status === "missing" ? "not set up" : e.status} label={e.status === "missing" ? "Not set up" : undefined} />
                </summary>
                <div className="mt-2 space-y-2">
                  {e.recordValue ? <code className="block rounded bg-base-200 px-2 py-1.5 text-xs break-all">{e.recordValue}</code> : null}
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
