/**
 * The chart and map, each loaded in its own chunk the first time a screen shows it, so screens
 * without charts (the landing page first) do not carry d3 or the country shapes.
 */
import { lazy, Suspense } from "react";
import type { TrendChartProps } from "./TrendChart";
import type { WorldMapProps } from "./WorldMap";

const TrendChartChunk = lazy(() => import("./TrendChart"));
const WorldMapChunk = lazy(() => import("./WorldMap"));

function ChartLoading({ className }: { className: string }) {
  return <div className={`skeleton w-full ${className}`} role="status" aria-label="Loading chart" />;
}

/** TrendChart, loaded on first use. */
export function LazyTrendChart(props: TrendChartProps) {
  return (
    <Suspense fallback={<ChartLoading className="h-[330px]" />}>
      <TrendChartChunk {...props} />
    </Suspense>
  );
}

/** WorldMap, loaded on first use. */
export function LazyWorldMap(props: WorldMapProps) {
  return (
    <Suspense fallback={<ChartLoading className="aspect-[960/440]" />}>
      <WorldMapChunk {...props} />
    </Suspense>
  );
}
