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
