/**
 * Memory kept near what is live during long work that makes much garbage (a report of 100,000
 * records, the reverse DNS of its 20,000 addresses): the engine grows its heap rather than
 * collect while allocations come fast, and a minor collection frees little of it. Call
 * `collectWhenGrown()` between steps: once resident memory has grown by `GC_HEADROOM_BYTES` over
 * its level after the last full collection, it runs one (tens of milliseconds for a heap of tens
 * of megabytes), which also hands the freed pages back. Steps that keep memory under the
 * headroom never pay for a collection.
 */
export const GC_HEADROOM_BYTES = 16 * 1024 * 1024;

/** resident bytes after the last full collection (or the lowest seen since) */
let floor = 0;

/** Runs a full garbage collection when resident memory has grown by GC_HEADROOM_BYTES since the last one; returns whether it ran. */
export function collectWhenGrown(): boolean {
  const rss = process.memoryUsage.rss();
  if (floor === 0 || rss < floor) floor = rss;
  if (rss < floor + GC_HEADROOM_BYTES) return false;
  Bun.gc(true);
  floor = process.memoryUsage.rss();
  return true;
}

/**
 * Records from which one report is large. A large report's work — its write, its report
 * events, the reverse DNS of its addresses — calls collectWhenGrown between steps (what the
 * last step left is garbage before the next adds to it); a smaller report's, and every file of
 * a bulk ingest (whose throughput comes first), never pays for the check. Decided once, where
 * the report's size is known (`isLargeReport`: a parsed file's records, or a streamed report
 * that does not end within its first batch of this many records), and carried with the write
 * (`WriteContext.large`, then the stored report, its events and its reverse DNS).
 */
export const LARGE_REPORT_RECORDS = 2_500;

/** Whether a report of `records` records is large (see LARGE_REPORT_RECORDS). */
export const isLargeReport = (records: number): boolean => records > LARGE_REPORT_RECORDS;

/** The step between parts of a report's work: collectWhenGrown for a large report, nothing otherwise. */
export const collectBetween = (large: boolean): (() => void) => (large ? () => void collectWhenGrown() : () => {});
