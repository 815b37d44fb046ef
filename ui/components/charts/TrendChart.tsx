import { scaleBand, scaleLinear } from "d3-scale";
import { line } from "d3-shape";
import { BarChart3 } from "lucide-react";
import { useId, useMemo, useState, type KeyboardEvent } from "react";
import { Link } from "react-router";
import { fillTrendDays, isEmptyTrend, passRate, trendTotals, type TrendDay, type TrendSeries } from "../../../src/lib/trends";
import { formatCount, formatPercent } from "../../lib/format";
import { EmptyState } from "../EmptyState";
import { useWidth } from "./useWidth";

const VOLUME_HEIGHT = 180;
const RATE_HEIGHT = 72;
const GAP = 28;
const MARGIN = { top: 8, right: 8, bottom: 22, left: 44 };
/** Room one date label needs on the x axis, in pixels. */
const LABEL_WIDTH = 48;

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });
const shortDate = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
const longDate = new Intl.DateTimeFormat("en-GB", { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const asDate = (day: string) => new Date(`${day}T00:00:00Z`);

/** "3 Mar" */
export const formatDay = (day: string) => shortDate.format(asDate(day));
/** "Tue 3 Mar 2026" (built from parts: engines differ on the comma after the weekday) */
export function formatLongDay(day: string): string {
  const parts = Object.fromEntries(longDate.formatToParts(asDate(day)).map((p) => [p.type, p.value]));
  return `${parts.weekday} ${parts.day} ${parts.month} ${parts.year}`;
}
const rateText = (rate: number | null) => (rate === null ? "no messages" : formatPercent(rate));

/** Words that sum the chart up for a screen reader. */
export function trendSummary(days: readonly TrendDay[]): string {
  if (days.length === 0) return "No days to show.";
  const t = trendTotals(days);
  const range = `${formatLongDay(days[0]!.date)} to ${formatLongDay(days[days.length - 1]!.date)}`;
  return `Messages per day and DMARC pass rate, ${range}: ${formatCount(t.messages)} messages, ${formatCount(t.passed)} passed, ${formatCount(t.failed)} failed, pass rate ${rateText(t.passRate)}.`;
}

function DayTooltip({ day, left, width }: { day: TrendDay; left: number; width: number }) {
  const rate = passRate(day.passed, day.messages);
  const flip = left > width / 2;
  return (
    <div
      className="pointer-events-none absolute top-0 z-10 w-52 rounded-box border border-base-300 bg-base-100 p-3 text-xs shadow-lg"
      style={flip ? { right: Math.max(0, width - left + 8) } : { left: Math.min(left + 8, Math.max(0, width - 208)) }}
      data-tooltip-date={day.date}
    >
      <p className="mb-1.5 font-semibold">{formatLongDay(day.date)}</p>
      <dl className="grid grid-cols-[1fr_auto] gap-x-3 gap-y-0.5 tabular-nums">
        <dt>Messages</dt>
        <dd className="text-right font-semibold">{formatCount(day.messages)}</dd>
        <dt className="flex items-center gap-1.5">
          <span className="inline-block h-2 w-2 rounded-sm bg-success" aria-hidden /> Passed
        </dt>
        <dd className="text-right">{formatCount(day.passed)}</dd>
        <dt className="flex items-center gap-1.5">
          <span className="inline-block h-2 w-2 rounded-sm bg-error" aria-hidden /> Failed
        </dt>
        <dd className="text-right">{formatCount(day.failed)}</dd>
        <dt>Pass rate</dt>
        <dd className="text-right font-semibold">{rateText(rate)}</dd>
        <dt className="opacity-70">Quarantined</dt>
        <dd className="text-right opacity-70">{formatCount(day.quarantined)}</dd>
        <dt className="opacity-70">Rejected</dt>
        <dd className="text-right opacity-70">{formatCount(day.rejected)}</dd>
        <dt className="opacity-70">SPF aligned</dt>
        <dd className="text-right opacity-70">{formatCount(day.spfAligned)}</dd>
        <dt className="opacity-70">DKIM aligned</dt>
        <dd className="text-right opacity-70">{formatCount(day.dkimAligned)}</dd>
      </dl>
    </div>
  );
}

/** The numbers behind the chart, for screen readers (and anyone reading the page without styles). */
function TrendTable({ days, caption }: { days: readonly TrendDay[]; caption: string }) {
  return (
    <div className="sr-only">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {["Date", "Messages", "Passed", "Failed", "Pass rate", "Quarantined", "Rejected", "SPF aligned", "DKIM aligned"].map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.date} data-date={d.date}>
              <th scope="row">{formatLongDay(d.date)}</th>
              <td>{formatCount(d.messages)}</td>
              <td>{formatCount(d.passed)}</td>
              <td>{formatCount(d.failed)}</td>
              <td>{rateText(passRate(d.passed, d.messages))}</td>
              <td>{formatCount(d.quarantined)}</td>
              <td>{formatCount(d.rejected)}</td>
              <td>{formatCount(d.spfAligned)}</td>
              <td>{formatCount(d.dkimAligned)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What to do when no report has arrived in the range (the dashboard's wording, plus where the address is). */
export function NoTrendData() {
  return (
    <EmptyState icon={BarChart3} title="No reports in this period">
      Aggregate reports appear here once mailbox providers send them: publish the report address shown in{" "}
      <Link to="/app/settings" className="link link-primary">
        Settings
      </Link>{" "}
      as the <code className="font-mono">rua=</code> of your domains' DMARC records, or upload reports on the DMARC Reports screen.
    </EmptyState>
  );
}

export interface TrendChartProps {
  /** The answer of `/api/trends`; days missing from it are shown as zeros. */
  series: TrendSeries;
  /** The chart's name for assistive technology (default "Message volume and DMARC pass rate"). */
  title?: string;
}

/**
 * Messages per UTC day, passed and failed stacked, over the DMARC pass rate of each day.
 * Hover a day, or focus the chart and use the arrow keys (Home/End for the ends), to see the
 * day's exact numbers; the same numbers are in a table for screen readers. All-zero ranges
 * show how to get reports flowing instead.
 */
export function TrendChart({ series, title = "Message volume and DMARC pass rate" }: TrendChartProps) {
  const days = useMemo(() => fillTrendDays(series.from, series.to, series.days), [series]);
  const [ref, width] = useWidth<HTMLDivElement>(640);
  const [active, setActive] = useState<number | null>(null);
  const id = useId();

  const plotWidth = Math.max(40, width - MARGIN.left - MARGIN.right);
  const volumeTop = MARGIN.top;
  const rateTop = volumeTop + VOLUME_HEIGHT + GAP;
  const height = rateTop + RATE_HEIGHT + MARGIN.bottom;

  const x = useMemo(
    () =>
      scaleBand<string>()
        .domain(days.map((d) => d.date))
        .range([0, plotWidth])
        .paddingInner(days.length > 60 ? 0.1 : 0.25)
        .paddingOuter(0.1),
    [days, plotWidth],
  );
  const y = useMemo(
    () =>
      scaleLinear()
        .domain([0, Math.max(1, ...days.map((d) => d.messages))])
        .range([VOLUME_HEIGHT, 0])
        .nice(4),
    [days],
  );
  const yRate = scaleLinear().domain([0, 100]).range([RATE_HEIGHT, 0]);
  const rates = days.map((d) => passRate(d.passed, d.messages));
  const ratePath =
    line<number | null>()
      .defined((r) => r !== null)
      .x((_, i) => (x(days[i]!.date) ?? 0) + x.bandwidth() / 2)
      .y((r) => yRate(r ?? 0))(rates) ?? "";

  if (isEmptyTrend(days)) return <NoTrendData />;

  const labelEvery = Math.max(1, Math.ceil((days.length * LABEL_WIDTH) / plotWidth));
  const summary = trendSummary(days);
  const activeDay = active === null ? undefined : days[active];
  const move = (e: KeyboardEvent) => {
    const last = days.length - 1;
    const current = active ?? (e.key === "ArrowLeft" ? last + 1 : -1);
    const next = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    setActive(Math.min(last, Math.max(0, next)));
  };

  return (
    <div role="figure" className="grid w-full min-w-0 gap-2" aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`} className="sr-only">
        {title}
      </p>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs" aria-hidden>
        <span className="flex items-center gap-1.5">
          <span className="inline-block h-2.5 w-2.5 rounded-sm bg-success" /> Passed
        </span>
        <span className="flex items-center gap-1.5">
          <span className="inline-block h-2.5 w-2.5 rounded-sm bg-error" /> Failed
        </span>
        <span className="flex items-center gap-1.5">
          <span className="inline-block h-0.5 w-4 rounded bg-primary" /> Pass rate
        </span>
      </div>
      <div ref={ref} className="relative w-full min-w-0">
        <svg
          width={width}
          height={height}
          role="img"
          tabIndex={0}
          aria-label={summary}
          aria-describedby={`${id}-hint`}
          className="block max-w-full overflow-visible rounded-box text-base-content focus:outline-none focus-visible:ring-2 focus-visible:ring-primary"
          onKeyDown={move}
          onBlur={() => setActive(null)}
          onMouseLeave={() => setActive(null)}
        >
          <g transform={`translate(${MARGIN.left},${volumeTop})`}>
            {y.ticks(4).map((t) => (
              <g key={t} transform={`translate(0,${y(t)})`}>
                <line x2={plotWidth} className="stroke-base-300" strokeDasharray={t === 0 ? undefined : "3 3"} />
                <text x={-6} dy="0.32em" textAnchor="end" className="fill-current text-[10px] opacity-70">
                  {compact.format(t)}
                </text>
              </g>
            ))}
          </g>
          <g transform={`translate(${MARGIN.left},${rateTop})`}>
            {[0, 50, 100].map((t) => (
              <g key={t} transform={`translate(0,${yRate(t)})`}>
                <line x2={plotWidth} className="stroke-base-300" strokeDasharray={t === 0 ? undefined : "3 3"} />
                <text x={-6} dy="0.32em" textAnchor="end" className="fill-current text-[10px] opacity-70">
                  {t}%
                </text>
              </g>
            ))}
            <path d={ratePath} fill="none" className="stroke-primary" strokeWidth={2} strokeLinejoin="round" strokeLinecap="round" />
          </g>
          <g transform={`translate(${MARGIN.left},0)`}>
            {days.map((d, i) => {
              const bx = x(d.date) ?? 0;
              const bw = x.bandwidth();
              const rate = rates[i]!;
              const isActive = i === active;
              return (
                <g key={d.date} data-day={d.date} data-messages={d.messages} data-passed={d.passed} data-failed={d.failed} onMouseEnter={() => setActive(i)}>
                  <rect
                    x={bx - (x.step() - bw) / 2}
                    width={x.step()}
                    y={volumeTop}
                    height={rateTop + RATE_HEIGHT - volumeTop}
                    className={isActive ? "fill-base-content/10" : "fill-transparent"}
                  />
                  <rect x={bx} width={bw} y={volumeTop + y(d.passed)} height={VOLUME_HEIGHT - y(d.passed)} className="fill-success" />
                  <rect x={bx} width={bw} y={volumeTop + y(d.messages)} height={y(d.passed) - y(d.messages)} className="fill-error" />
                  {rate !== null && (days.length <= 31 || isActive) && (
                    <circle cx={bx + bw / 2} cy={rateTop + yRate(rate)} r={isActive ? 4 : 2.5} className="fill-base-100 stroke-primary" strokeWidth={2} />
                  )}
                  {i % labelEvery === 0 && (
                    <text x={bx + bw / 2} y={height - 6} textAnchor="middle" className="fill-current text-[10px] opacity-70">
                      {formatDay(d.date)}
                    </text>
                  )}
                </g>
              );
            })}
          </g>
          <text x={MARGIN.left} y={rateTop - 8} className="fill-current text-[10px] font-semibold opacity-70">
            DMARC pass rate
          </text>
        </svg>
        {activeDay && <DayTooltip day={activeDay} left={MARGIN.left + (x(activeDay.date) ?? 0) + x.bandwidth()} width={width} />}
      </div>
      <p id={`${id}-hint`} className="sr-only">
        Use the left and right arrow keys to read each day's numbers.
      </p>
      <div aria-live="polite" className="sr-only">
        {activeDay
          ? `${formatLongDay(activeDay.date)}: ${formatCount(activeDay.messages)} messages, ${formatCount(activeDay.passed)} passed, ${formatCount(activeDay.failed)} failed, pass rate ${rateText(passRate(activeDay.passed, activeDay.messages))}.`
          : ""}
      </div>
      <TrendTable days={days} caption={title} />
    </div>
  );
}

export default TrendChart;
