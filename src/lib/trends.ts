/**
 * The daily trend series of `/api/trends` and the pure rules the charts apply to it: one
 * entry per UTC day, oldest first, zeros for days without reports, and pass rates that
 * never divide by zero.
 */

/** One UTC day of a trend series. The field names are a public contract: other tools read them. */
export interface TrendDay {
  /** UTC day, "YYYY-MM-DD". */
  date: string;
  messages: number;
  /** Messages with DMARC pass (aligned SPF or aligned DKIM). */
  passed: number;
  /** messages − passed. */
  failed: number;
  quarantined: number;
  rejected: number;
  spfAligned: number;
  dkimAligned: number;
}

/** The answer of `GET /api/trends`: every day from `from` to `to` inclusive. */
export interface TrendSeries {
  from: string;
  to: string;
  days: TrendDay[];
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
const COUNT_FIELDS = ["messages", "passed", "failed", "quarantined", "rejected", "spfAligned", "dkimAligned"] as const;

/** Milliseconds since the epoch of a "YYYY-MM-DD" UTC day, or NaN when it is not a real date. */
export function parseUtcDate(date: string): number {
  if (!DATE_PATTERN.test(date)) return Number.NaN;
  const ms = Date.parse(`${date}T00:00:00Z`);
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date ? Number.NaN : ms;
}

/** The "YYYY-MM-DD" UTC day of an instant. */
export function utcDate(value: Date | number): string {
  return new Date(value).toISOString().slice(0, 10);
}

/** The day `n` days after (negative: before) a "YYYY-MM-DD" day. */
export function addDays(date: string, n: number): string {
  return utcDate(parseUtcDate(date) + n * DAY_MS);
}

/** Days from `from` to `to` inclusive (0 when `to` is before `from` or either is not a date). */
export function daysBetween(from: string, to: string): number {
  const span = (parseUtcDate(to) - parseUtcDate(from)) / DAY_MS;
  return Number.isNaN(span) || span < 0 ? 0 : span + 1;
}

/** The last `days` UTC days ending with the day of `now` (today included). */
export function lastDays(days: number, now: Date = new Date()): { from: string; to: string } {
  const to = utcDate(now);
  return { from: addDays(to, -(Math.max(1, Math.floor(days)) - 1)), to };
}

/** A day of zeros. */
export function emptyDay(date: string): TrendDay {
  return { date, messages: 0, passed: 0, failed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0 };
}

/**
 * Every UTC day from `from` to `to` inclusive, oldest first: the entries given (several for
 * the same day are added up), zeros for the days missing, entries outside the range dropped.
 */
export function fillTrendDays(from: string, to: string, entries: readonly Partial<TrendDay>[]): TrendDay[] {
  const count = daysBetween(from, to);
  const start = parseUtcDate(from);
  const byDate = new Map<string, TrendDay>();
  const days: TrendDay[] = [];
  for (let i = 0; i < count; i++) {
    const day = emptyDay(utcDate(start + i * DAY_MS));
    byDate.set(day.date, day);
    days.push(day);
  }
  for (const entry of entries) {
    const day = entry.date === undefined ? undefined : byDate.get(entry.date);
    if (!day) continue;
    for (const field of COUNT_FIELDS) day[field] += entry[field] ?? 0;
  }
  return days;
}

/** The DMARC pass rate in percent (0–100), or null when there were no messages. */
export function passRate(passed: number, messages: number): number | null {
  if (!(messages > 0)) return null;
  return Math.min(100, Math.max(0, (passed / messages) * 100));
}

/** Totals of a series, with its overall pass rate (null when it has no messages). */
export function trendTotals(days: readonly TrendDay[]): TrendDay & { passRate: number | null } {
  const total = emptyDay(days.length ? `${days[0]!.date}/${days[days.length - 1]!.date}` : "");
  for (const day of days) for (const field of COUNT_FIELDS) total[field] += day[field];
  return { ...total, passRate: passRate(total.passed, total.messages) };
}

/** True when no day of the series has a message: nothing has been reported yet. */
export function isEmptyTrend(days: readonly TrendDay[]): boolean {
  return days.every((d) => d.messages === 0);
}

/** The longest range a trend covers (`/api/trends?days=` accepts 1 to this). */
export const MAX_TREND_DAYS = 400;

/** Why a custom range cannot be shown, in words that say what to change; null when it is fine. */
export function rangeProblem(from: string, to: string): string | null {
  if (Number.isNaN(parseUtcDate(from))) return "Choose a start date.";
  if (Number.isNaN(parseUtcDate(to))) return "Choose an end date.";
  if (parseUtcDate(from) > parseUtcDate(to)) return "The start date must be on or before the end date.";
  if (daysBetween(from, to) > MAX_TREND_DAYS) return `Choose a range of at most ${MAX_TREND_DAYS} days.`;
  return null;
}
