import { TrendingDown, TrendingUp, type LucideIcon } from "lucide-react";
import type { ReactNode } from "react";

/**
 * A change value of SPEC §3 ("+2", "-3", "+12%"), green when it moves the good way.
 * "+0"/"+0%" is neutral.
 */
export function ChangeBadge({ value, goodWhen }: { value: string; goodWhen: "up" | "down" }) {
  const zero = /^[+-]0(%|$)/.test(value);
  const up = value.startsWith("+");
  const good = (up && goodWhen === "up") || (!up && goodWhen === "down");
  const Icon = up ? TrendingUp : TrendingDown;
  const tone = zero ? "opacity-60" : good ? "text-success" : "text-error";
  return (
    <span className={`inline-flex items-center gap-1 text-xs font-medium ${tone}`} data-testid="change">
      {!zero && <Icon className="h-3.5 w-3.5" aria-hidden />}
      {value}
    </span>
  );
}

/** One dashboard number: label, icon, the value, and a line of context underneath. */
export function StatCard({ label, value, icon: Icon, footer, title, detail }: { label: string; value: ReactNode; icon: LucideIcon; footer?: ReactNode; title?: string; /** a line right beneath the value (e.g. the exact count under a rounded one) */ detail?: ReactNode }) {
  return (
    <div className="card border border-base-300 bg-base-100" role="group" aria-label={label}>
      <div className="card-body gap-1 p-4">
        <div className="flex items-center justify-between gap-2">
          <p className="text-xs font-medium opacity-70 sm:text-sm">{label}</p>
          <Icon className="h-4 w-4 shrink-0 text-primary" aria-hidden />
        </div>
        <p className="text-2xl font-bold tabular-nums sm:text-3xl" title={title}>
          {value}
        </p>
        {detail && <p className="-mt-1 text-xs tabular-nums opacity-70">{detail}</p>}
        {footer && <div className="flex flex-wrap items-center gap-1 text-xs">{footer}</div>}
      </div>
    </div>
  );
}
