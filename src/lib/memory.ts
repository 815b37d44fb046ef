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

/** Runs a full garbage collection now (a large piece of work has ended: what it left is garbage); the next collectWhenGrown measures from here. */
export function collectNow(): void {
  Bun.gc(true);
  floor = process.memoryUsage.rss();
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

/** large reports being written (from when a report is known to be large to its answer) */
let largeWrites = 0;
let whenNone: (() => void)[] = [];

/**
 * Marks a large report's write as under way until the returned function is called (once is
 * enough; calling it again does nothing). The work that may wait — the reverse DNS of a report
 * already stored — waits for it (`largeWritesDone`), so one report's lookups and the next one's
 * write do not hold their memory at the same time.
 */
export function largeWriteBegun(): () => void {
  largeWrites++;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    if (--largeWrites > 0) return;
    const waiting = whenNone;
    whenNone = [];
    for (const resume of waiting) resume();
  };
}

/** A promise resolved once no large report is being written; null when none is (nothing to wait for, not even a turn of the event loop). */
export function largeWritesDone(): Promise<void> | null {
  return largeWrites === 0 ? null : new Promise((resolve) => whenNone.push(resolve));
}
