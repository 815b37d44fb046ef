import { AlertTriangle, Info, XCircle } from "lucide-react";
import type { Finding } from "../../../src/lib/dns/types";

const ICONS = { error: XCircle, warning: AlertTriangle, info: Info } as const;
const COLORS = { error: "text-error", warning: "text-warning", info: "text-info" } as const;
const LABELS = { error: "Problem", warning: "Warning", info: "Note" } as const;

/** Each problem in plain words, with the fix to make beneath it. */
export function FindingList({ findings }: { findings: Finding[] }) {
  if (!findings.length) return <p className="text-sm opacity-70">No problems found.</p>;
  return (
    <ul className="space-y-3">
      {findings.map((f, i) => {
        const Icon = ICONS[f.level];
        return (
          <li key={`${f.code}-${i}`} className="flex gap-2 text-sm" data-level={f.level}>
            <Icon className={`mt-0.5 h-4 w-4 shrink-0 ${COLORS[f.level]}`} aria-label={LABELS[f.level]} />
            <div className="min-w-0">
              <p>{f.message}</p>
              {f.fix ? (
                <p className="mt-1 opacity-80">
                  <span className="font-semibold">How to fix: </span>
                  {f.fix}
                </p>
              ) : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
