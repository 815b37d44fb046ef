import { useId, useState, type FormEvent } from "react";
import { daysBetween, lastDays, MAX_TREND_DAYS, rangeProblem } from "../../src/lib/trends";

/** A range of UTC days: the last N days, or a custom from–to (both "YYYY-MM-DD", inclusive). */
export type DayRange = { kind: "last"; days: number } | { kind: "custom"; from: string; to: string };

/** The preset choices, in days. */
export const RANGE_PRESETS = [7, 30, 90] as const;

/** The first and last day of a range (`now` decides what "today" is for the presets). */
export function rangeDates(range: DayRange, now: Date = new Date()): { from: string; to: string } {
  return range.kind === "last" ? lastDays(range.days, now) : { from: range.from, to: range.to };
}

/** How many days a range covers. */
export function rangeLength(range: DayRange): number {
  return range.kind === "last" ? range.days : daysBetween(range.from, range.to);
}

export interface RangePickerProps {
  value: DayRange;
  /** Called with a preset as soon as it is chosen, with a custom range once it is applied and valid. */
  onChange: (range: DayRange) => void;
  /** What "today" is (the custom inputs start at the current range and cannot go past today). */
  now?: Date;
  /** Name of the group for assistive technology. */
  label?: string;
}

/**
 * The 7 / 30 / 90 days choice of the charts, plus a custom range: two date inputs that are
 * applied only when the start is on or before the end and the range is at most 400 days.
 */
export function RangePicker({ value, onChange, now, label = "Date range" }: RangePickerProps) {
  const id = useId();
  const current = rangeDates(value, now);
  const [custom, setCustom] = useState(value.kind === "custom");
  const [from, setFrom] = useState(current.from);
  const [to, setTo] = useState(current.to);
  const [problem, setProblem] = useState<string | null>(null);
  const today = rangeDates({ kind: "last", days: 1 }, now).to;

  const apply = (e: FormEvent) => {
    e.preventDefault();
    const why = rangeProblem(from, to);
    setProblem(why);
    if (!why) onChange({ kind: "custom", from, to });
  };
  const openCustom = () => {
    setFrom(current.from);
    setTo(current.to);
    setProblem(null);
    setCustom(true);
  };

  return (
    <div className="grid gap-2">
      <div role="group" aria-label={label} className="join">
        {RANGE_PRESETS.map((days) => {
          const selected = !custom && value.kind === "last" && value.days === days;
          return (
            <button
              key={days}
              type="button"
              className={`btn join-item btn-sm ${selected ? "btn-primary" : "btn-outline border-base-300"}`}
              aria-pressed={selected}
              onClick={() => {
                setCustom(false);
                setProblem(null);
                onChange({ kind: "last", days });
              }}
            >
              {days} days
            </button>
          );
        })}
        <button type="button" className={`btn join-item btn-sm ${custom ? "btn-primary" : "btn-outline border-base-300"}`} aria-pressed={custom} onClick={openCustom}>
          Custom
        </button>
      </div>
      {custom && (
        <form className="flex flex-wrap items-end gap-2" onSubmit={apply} noValidate aria-label="Custom range">
          <label className="grid gap-1 text-xs" htmlFor={`${id}-from`}>
            From
            <input
              id={`${id}-from`}
              type="date"
              className={`input input-sm w-40 ${problem ? "input-error" : ""}`}
              value={from}
              max={today}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-problem` : undefined}
              onChange={(e) => setFrom(e.target.value)}
            />
          </label>
          <label className="grid gap-1 text-xs" htmlFor={`${id}-to`}>
            To
            <input
              id={`${id}-to`}
              type="date"
              className={`input input-sm w-40 ${problem ? "input-error" : ""}`}
              value={to}
              max={today}
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-problem` : undefined}
              onChange={(e) => setTo(e.target.value)}
            />
          </label>
          <button type="submit" className="btn btn-sm btn-primary">
            Apply
          </button>
          <p className="basis-full text-xs opacity-60">At most {MAX_TREND_DAYS} days, in UTC.</p>
          {problem && (
            <p id={`${id}-problem`} role="alert" className="basis-full text-sm text-error">
              {problem}
            </p>
          )}
        </form>
      )}
    </div>
  );
}
