/**
 * Colour buckets for a choropleth of counts: a few "nice" lower bounds (1, 2, 5 × 10ⁿ) spread
 * evenly on a log scale, so a country with 3 messages and one with 30,000 both show.
 */

/** How many shades the map's scale has (bucket 0 is the lightest). */
export const COLOUR_BUCKETS = 5;

/** The largest 1, 2 or 5 × 10ⁿ that is at most `value` (1 for anything below 2). */
function niceFloor(value: number): number {
  if (!(value >= 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [5, 2, 1].find((m) => m * power <= value) ?? 1;
  return step * power;
}

/**
 * Ascending lower bounds of the buckets for counts up to `max`: always starts at 1, distinct,
 * at most `buckets` of them (fewer when `max` is small: a max of 3 gives [1, 2]).
 */
export function colourBounds(max: number, buckets: number = COLOUR_BUCKETS): number[] {
  const top = Math.max(1, Math.floor(max));
  const n = Math.max(1, Math.floor(buckets));
  const bounds: number[] = [];
  for (let i = 0; i < n; i++) {
    const bound = niceFloor(top ** (i / n));
    if (bound !== bounds[bounds.length - 1]) bounds.push(bound);
  }
  return bounds;
}

/** The bucket of a count: -1 for none (0, negative or not a number), else the last bound it reaches. */
export function bucketOf(count: number, bounds: readonly number[]): number {
  if (!(count > 0)) return -1;
  let bucket = 0;
  for (let i = 0; i < bounds.length; i++) if (count >= bounds[i]!) bucket = i;
  return bucket;
}

/** The legend's label of each bucket: "1", "2–4", …, "1,000+" for the last one. */
export function bucketLabels(bounds: readonly number[], format: (n: number) => string = (n) => n.toLocaleString("en-US")): string[] {
  return bounds.map((low, i) => {
    const next = bounds[i + 1];
    if (next === undefined) return `${format(low)}+`;
    return next - 1 === low ? format(low) : `${format(low)}–${format(next - 1)}`;
  });
}
