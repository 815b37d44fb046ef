import { geoNaturalEarth1, geoPath } from "d3-geo";
import { useMemo, useState } from "react";
import { feature } from "topojson-client";
import type { GeometryCollection, Topology } from "topojson-specification";
import atlas from "world-atlas/countries-110m.json";
import { bucketLabels, bucketOf, colourBounds, COLOUR_BUCKETS } from "../../../src/lib/colour-scale";
import { formatCount } from "../../lib/format";
import { CountryLabel, countryName } from "../CountryLabel";
import { alpha2OfShape } from "./iso-numeric";
import { useWidth } from "./useWidth";

const VIEW_WIDTH = 960;
const VIEW_HEIGHT = 440;
/** Shares of the error colour for buckets 0…n−1 (mixed into the page background). */
const SHADES = [22, 40, 58, 78, 100];
/** Land without failing mail: a little text colour over the background, so it shows in light and dark themes. */
export const EMPTY_LAND = "color-mix(in oklab, var(--color-base-content) 12%, var(--color-base-100))";

interface Shape {
  code: string;
  name: string;
  d: string;
  centroid: [number, number];
}

let shapes: Shape[] | undefined;

/** The country shapes (Natural Earth 1:110m, Antarctica left out), projected once. */
function countryShapes(): Shape[] {
  if (shapes) return shapes;
  const topology = atlas as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const collection = feature(topology, topology.objects.countries);
  const kept = collection.features.filter((f) => f.id !== "010");
  const projection = geoNaturalEarth1().fitExtent(
    [
      [4, 4],
      [VIEW_WIDTH - 4, VIEW_HEIGHT - 4],
    ],
    { type: "FeatureCollection", features: kept },
  );
  const path = geoPath(projection);
  shapes = kept.flatMap((f) => {
    const code = alpha2OfShape(f.id, f.properties?.name);
    const d = path(f);
    if (!code || !d) return [];
    return [{ code, name: countryName(code) ?? f.properties?.name ?? code, d, centroid: path.centroid(f) }];
  });
  return shapes;
}

/** The fill of a bucket: a share of the error colour over the background, or the empty-land colour. */
function shade(bucket: number): string {
  if (bucket < 0) return EMPTY_LAND;
  const share = SHADES[Math.round((bucket * (SHADES.length - 1)) / Math.max(1, COLOUR_BUCKETS - 1))] ?? 100;
  return `color-mix(in oklab, var(--color-error) ${share}%, var(--color-base-100))`;
}

export interface WorldMapProps {
  /** Failing messages per country, keyed by ISO 3166-1 alpha-2 code ("DE": 1234). */
  counts: Record<string, number>;
  /** The map's name for assistive technology. */
  label?: string;
}

/**
 * A world choropleth of failing messages by country, drawn from shapes shipped in the bundle
 * (nothing is fetched). Every shape carries `data-country` (alpha-2); countries with messages
 * can be hovered or focused (Tab) for their name and count. Countries too small for the map's
 * scale are listed under it.
 */
export function WorldMap({ counts, label = "Failing messages by country" }: WorldMapProps) {
  const all = countryShapes();
  const [ref, width] = useWidth<HTMLDivElement>(VIEW_WIDTH);
  const [active, setActive] = useState<Shape | null>(null);

  const normalised = useMemo(() => {
    const out = new Map<string, number>();
    for (const [code, n] of Object.entries(counts)) if (n > 0 && /^[A-Za-z]{2}$/.test(code)) out.set(code.toUpperCase(), (out.get(code.toUpperCase()) ?? 0) + n);
    return out;
  }, [counts]);
  const bounds = useMemo(() => colourBounds(Math.max(0, ...normalised.values())), [normalised]);
  const labels = bucketLabels(bounds, formatCount);
  const onMap = new Set(all.map((s) => s.code));
  const offMap = [...normalised].filter(([code]) => !onMap.has(code)).sort((a, b) => b[1] - a[1]);
  const ranked = [...normalised].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

  const scale = width / VIEW_WIDTH;
  const activeCount = active ? (normalised.get(active.code) ?? 0) : 0;

  return (
    <div role="figure" className="grid w-full min-w-0 gap-3" aria-label={label}>
      <div ref={ref} className="relative w-full min-w-0">
        <svg viewBox={`0 0 ${VIEW_WIDTH} ${VIEW_HEIGHT}`} className="block h-auto w-full" role="group" aria-label={label} onMouseLeave={() => setActive(null)}>
          {all.map((s, i) => {
            const count = normalised.get(s.code) ?? 0;
            const withData = count > 0;
            return (
              <path
                key={`${s.code}-${i}`}
                d={s.d}
                data-country={s.code}
                data-count={withData ? count : undefined}
                style={{ fill: shade(bucketOf(count, bounds)) }}
                className={`stroke-base-100 outline-none ${withData ? "cursor-pointer hover:stroke-base-content focus-visible:stroke-base-content" : ""}`}
                strokeWidth={withData && active === s ? 1.5 : 0.5}
                vectorEffect="non-scaling-stroke"
                tabIndex={withData ? 0 : undefined}
                role={withData ? "img" : undefined}
                aria-label={withData ? `${s.name}: ${formatCount(count)} failing ${count === 1 ? "message" : "messages"}` : undefined}
                aria-hidden={withData ? undefined : true}
                onMouseEnter={() => setActive(withData ? s : null)}
                onFocus={() => setActive(s)}
                onBlur={() => setActive(null)}
              />
            );
          })}
        </svg>
        {active && (
          <div
            className="pointer-events-none absolute z-10 -translate-x-1/2 -translate-y-full whitespace-nowrap rounded-box border border-base-300 bg-base-100 px-3 py-2 text-xs shadow-lg"
            style={{ left: Math.min(Math.max(active.centroid[0] * scale, 90), width - 90), top: Math.max(active.centroid[1] * scale - 6, 44) }}
            data-tooltip-country={active.code}
          >
            <CountryLabel code={active.code} name={active.name} className="font-semibold" />
            <p className="tabular-nums">
              {formatCount(activeCount)} failing {activeCount === 1 ? "message" : "messages"}
            </p>
          </div>
        )}
      </div>
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs" aria-label="Color scale">
        <span className="opacity-70">Failing messages</span>
        <span className="flex items-center gap-1">
          <span className="inline-block h-3 w-4 rounded-sm border border-base-300" style={{ background: shade(-1) }} aria-hidden />
          None
        </span>
        {bounds.map((_, i) => (
          <span key={i} className="flex items-center gap-1 tabular-nums" data-bucket={i}>
            <span className="inline-block h-3 w-4 rounded-sm" style={{ background: shade(i) }} aria-hidden />
            {labels[i]}
          </span>
        ))}
      </div>
      {offMap.length > 0 && (
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
          <span className="opacity-70">Too small for the map:</span>
          {offMap.map(([code, n]) => (
            <span key={code} className="inline-flex items-center gap-1" data-off-map={code}>
              <CountryLabel code={code} /> <span className="tabular-nums opacity-70">{formatCount(n)}</span>
            </span>
          ))}
        </p>
      )}
      <div className="sr-only">
        <table>
          <caption>{label}</caption>
          <thead>
            <tr>
              <th scope="col">Country</th>
              <th scope="col">Failing messages</th>
            </tr>
          </thead>
          <tbody>
            {ranked.map(([code, n]) => (
              <tr key={code}>
                <th scope="row">{countryName(code) ?? code}</th>
                <td>{formatCount(n)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

export default WorldMap;
