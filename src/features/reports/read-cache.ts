/**
 * Answers of the heaviest roll-up reads, kept by the server between requests: the Senders list,
 * trends' top sources, the sender page, a domain's sources (its readiness and enforcement pages),
 * the tasks' failing mail (the tasks and the dashboard's figures) and the threat list sum every
 * address of a window (at 10 M records the largest organization's 30 days are a quarter of a million
 * address-days), while a user moving between screens, ranges and domains asks the same again and
 * again.
 *
 * An answer is kept with its organization's roll-up version (`rollup_versions`), a counter raised
 * in the same transaction as every change to what those reads read (`daily_sender_stats`,
 * `source_names`, `sender_marks`: migration 0026 / PostgreSQL 0024): by their writers, once per
 * organization a write touches, for rows written to the first two (raiseRollupVersion: migration
 * 0031 / PostgreSQL 0032; a trigger run per row was a seventh of a bulk ingest's sender upserts),
 * by triggers for the marks and for every deletion. The sender page also shows sample records,
 * which nothing else watches: they are written with their report's roll-ups, named by reverse DNS
 * with `source_names`, and the retention purge raises the counter with the records it deletes — a
 * new path that changes records alone must call `raiseRollupVersion` too. Each request reads the
 * counter first (one primary-key read) and serves the kept answer only while it holds, so an
 * answer is never older than the data,
 * whichever server (of several on one database) wrote. The window's days are part of each key,
 * so a new UTC day asks afresh; no kept computation reads the clock. What is not in the roll-ups
 * is never kept: a domain's readiness looks its DNS up on every request, around its kept sources.
 * An answer computed while a write of this process was open (SQLite reads on the shared
 * connection would see data not yet committed) or began is served but not kept; a kept answer is
 * still served then (the counter read is the committed one, or one above every kept answer's
 * when the open write has raised it).
 *
 * Bounded: at most READ_CACHE_ENTRIES answers and READ_CACHE_CHARS of their JSON text per store
 * (least recently used go first; one answer larger than READ_CACHE_ANSWER_CHARS is never kept);
 * in memory an answer takes about two to three times its JSON text.
 *
 * Computed once for requests that come together: a request that finds the answer of its key and
 * version being computed for another request, or by the refresh below, waits for that
 * computation and is served its answer (the dashboard asks for its figures and its tasks at
 * once, and both sum the same failing mail).
 * Never across a write: a computation made inside a write (which may read what it has not
 * committed) or while one is open is its own, and a request joins a computation only while no
 * write of this process has begun since it started (on SQLite it may have read a write's rows
 * that were then rolled back: a read made meanwhile may be served them, a later one never).
 *
 * Refreshed ahead of the next request (`startKeptRefresh`, run by `serve`): every
 * REFRESH_EVERY_MS a server reads the versions of the organizations whose kept answers were read
 * within REFRESH_READ_WITHIN_MS, and computes again those whose organization's data changed and
 * then stayed as it was for a whole run (a burst of reports is waited out, not chased), at most
 * REFRESH_BUDGET_MS of work a run. Someone watching a screen while reports arrive gets the new
 * answer kept before asking.
 *
 * The window reads keep the sums of their settled days too (`windowSums`, docs/rollups.md
 * "Settled days"): with the settled version, which only changes of days before yesterday move,
 * so an answer computed again after the usual report of yesterday reads two days, not its window.
 */
import { sql } from "drizzle-orm";
import { oneOf } from "../../db/id-set";
import type { StoreCore } from "../../db/store";
import type { OrgContext } from "../../http/access";
import { periodic, type Periodic } from "../../lib/periodic";
import { keptAnswers } from "../metrics/registry";

export const READ_CACHE_ENTRIES = 256;
/** at most this much answer kept per store, measured as the answers' JSON text (characters) */
export const READ_CACHE_CHARS = 16 * 1024 * 1024;
/** an answer larger than this (an organization of thousands of domains, say) is served, never kept */
export const READ_CACHE_ANSWER_CHARS = 4 * 1024 * 1024;

/** How often a server refreshes kept answers whose organization's data changed. */
export const REFRESH_EVERY_MS = 10_000;
/** Answers read within this long are refreshed after a change; the others wait for a request. */
export const REFRESH_READ_WITHIN_MS = 15 * 60_000;
/** Work a refresh run may do before it leaves the rest to the next run. */
export const REFRESH_BUDGET_MS = 1_000;

interface Kept {
  version: number;
  value: unknown;
  chars: number;
  orgId: string;
  /** computes the answer again (the refresh) */
  compute: () => Promise<unknown>;
  /** when a request last read it (Date.now()) */
  readAt: number;
}

/** Bounds of a KeptAnswers: entries, their summed size, the largest one kept. */
interface Bounds {
  entries: number;
  size: number;
  one: number;
}

/**
 * One store's kept answers, least recently used first. An answer's size is its JSON text's
 * length (`chars`) unless the keeper gives one.
 */
export class KeptAnswers {
  readonly entries = new Map<string, Kept>();
  chars = 0;
  /** each organization's version as the last refresh run read it */
  seen = new Map<string, number>();

  constructor(private readonly bounds: Bounds = { entries: READ_CACHE_ENTRIES, size: READ_CACHE_CHARS, one: READ_CACHE_ANSWER_CHARS }) {}

  get(id: string, version: number, readAt = Date.now()): Kept | undefined {
    const hit = this.entries.get(id);
    if (!hit || hit.version !== version) return undefined;
    hit.readAt = readAt;
    this.entries.delete(id);
    this.entries.set(id, hit);
    return hit;
  }

  keep(id: string, entry: Omit<Kept, "chars">, size?: number): void {
    this.drop(id);
    let chars: number;
    try {
      chars = size ?? JSON.stringify(entry.value)?.length ?? 0;
    } catch {
      return; // not JSON (it could not be sized): served, never kept
    }
    if (chars > this.bounds.one) return;
    this.entries.set(id, { ...entry, chars });
    this.chars += chars;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= this.bounds.entries && this.chars <= this.bounds.size) break;
      this.drop(oldest);
    }
  }

  drop(id: string): void {
    const had = this.entries.get(id);
    if (!had) return;
    this.entries.delete(id);
    this.chars -= had.chars;
  }
}

const kept = new WeakMap<StoreCore, KeptAnswers>();
/** the computations under way per store, by answer id and version, with the store's read epoch when each began (see keptRead) */
const computing = new WeakMap<StoreCore, Map<string, { epoch: number; computation: Promise<unknown> }>>();

/** The statement that raises one organization's roll-up version (SQLite's report writer prepares it). */
export const RAISE_ROLLUP_VERSION = "UPDATE rollup_versions SET version = version + 1 WHERE org_id = ?";
/** The same for a change that leaves the settled days' sums as they were: the settled version holds (migration 0034). */
export const RAISE_ROLLUP_VERSION_UNSETTLED = "UPDATE rollup_versions SET version = version + 1, unsettled_raises = unsettled_raises + 1 WHERE org_id = ?";

/**
 * Raises the organization's roll-up version by hand, inside the caller's `store.write`: for a
 * change that no trigger sees. Inserting or updating `daily_sender_stats` or `source_names` is
 * one (their writers call this, or RAISE_ROLLUP_VERSION, once per organization a write touches:
 * SQLite migration 0031, PostgreSQL 0032), as is the retention purge deleting the sample records
 * the sender page shows; any new path that writes those tables or changes records alone must too.
 * `unsettled`: the change leaves every sender roll-up row of the settled days as it was (reverse
 * DNS names; sender rows of days from `unsettledFrom()` only), so the settled version holds; when
 * in doubt, not.
 */
export async function raiseRollupVersion(store: StoreCore, orgId: string, unsettled = false): Promise<void> {
  await raiseRollupVersions(store, [orgId], unsettled);
}

/** raiseRollupVersion for several organizations in one statement. */
export async function raiseRollupVersions(store: StoreCore, orgIds: readonly string[], unsettled = false): Promise<void> {
  if (!orgIds.length) return;
  const alsoUnsettled = unsettled ? sql`, unsettled_raises = unsettled_raises + 1` : sql``;
  await store.rows(sql`UPDATE rollup_versions SET version = version + 1${alsoUnsettled} WHERE ${oneOf(store.dialect, sql`org_id`, orgIds)}`);
}

const DAY_MS = 86_400_000;
/**
 * How far apart the clocks of servers sharing a database may be: a reader's settled days end
 * two days before its day as it was this long ago, while a writer counts its unsettled days
 * from its own clock, so every write that changes a day a reader kept as settled raises the
 * settled version.
 */
export const SETTLED_CLOCK_MARGIN_MS = 5 * 60_000;
/**
 * The first UTC day whose sender rows a write may change and still keep the settled version:
 * yesterday by this server's clock (reports mostly arrive the day after their period's).
 */
export const unsettledFrom = (nowMs = Date.now()): number => Math.floor(nowMs / DAY_MS) - 1;
/** The last settled UTC day: two days before today as it was SETTLED_CLOCK_MARGIN_MS ago. */
export const settledThrough = (nowMs = Date.now()): number => Math.floor((nowMs - SETTLED_CLOCK_MARGIN_MS) / DAY_MS) - 2;

/**
 * PostgreSQL, inside a write that will change the organization's roll-ups: takes its version's
 * row now, which the roll-ups' triggers would take only at the write's first roll-up statement
 * (its end, for a report): another write of the organization's roll-ups, names or marks begun
 * meanwhile then waits for this one instead of committing first and making this one fail there
 * and run again whole. Nothing on SQLite (one writer at a time).
 */
export async function holdRollupVersion(store: StoreCore, orgId: string): Promise<void> {
  if (store.dialect !== "postgres") return;
  await store.rows(sql`SELECT version FROM rollup_versions WHERE org_id = ${orgId} FOR NO KEY UPDATE`);
}

/** The organization's roll-up version, or null when it has none (an organization being removed). */
export async function rollupVersion(ctx: OrgContext): Promise<number | null> {
  const [row] = await ctx.store.tuples<[number | string]>(sql`SELECT version FROM rollup_versions WHERE org_id = ${ctx.actor.orgId}`);
  return row ? Number(row[0]) : null;
}

/**
 * The answer of `compute` for `key` in the caller's organization: the kept one while the
 * organization's roll-up version holds, else computed (and kept). `key` must name everything
 * the answer depends on besides the organization and the roll-up tables (the window's days, the
 * domain, the limit). The answer is shared between requests: callers must not change it.
 */
export async function keptRead<T>(ctx: OrgContext, key: string, compute: () => Promise<T>): Promise<T> {
  return keptBy(ctx, key, compute, ANSWERS);
}

/** Where and by which version keptBy keeps values, and what it tells of each request. */
interface Keeping<T> {
  caches: WeakMap<StoreCore, KeptAnswers>;
  make: () => KeptAnswers;
  version: (ctx: OrgContext) => Promise<number | null>;
  /** before a computation's id and version in `computing` */
  flight: string;
  /** the size of a value kept (else its JSON text's length) */
  size?: (value: T) => number;
  count?: (outcome: "hit" | "shared" | "computed") => void;
}

const ANSWERS: Keeping<unknown> = { caches: kept, make: () => new KeptAnswers(), version: rollupVersion, flight: "", count: (outcome) => keptAnswers.inc({ outcome }) };

/**
 * The value of `compute` for `key` in the caller's organization, kept in `keeping`'s cache while
 * its version holds: the kept one, the one under way for another caller, or computed, and kept
 * when no write of this process began or was open meanwhile (keptRead, settledSums).
 */
async function keptBy<T>(ctx: OrgContext, key: string, compute: () => Promise<T>, keeping: Keeping<T>): Promise<T> {
  const store = ctx.store;
  // while a write is open a kept value may still be served (the counter read then is the
  // committed one, or one above every kept value's when the write has raised it), never kept
  const epoch = store.readEpoch();
  const version = await keeping.version(ctx);
  if (version === null) return compute();
  let cache = keeping.caches.get(store);
  if (!cache) keeping.caches.set(store, (cache = keeping.make()));
  const orgId = ctx.actor.orgId;
  const id = `${orgId}\n${key}`;
  const hit = cache.get(id, version);
  if (hit) {
    keeping.count?.("hit");
    return hit.value as T;
  }
  const { computation, shared } = computeOnce(store, `${keeping.flight}${id}\n${version}`, epoch, compute);
  if (shared) {
    keeping.count?.("shared");
    return computation;
  }
  const value = await computation;
  keeping.count?.("computed");
  if (epoch !== null && store.readEpoch() === epoch) cache.keep(id, { version, value, orgId, compute, readAt: Date.now() }, keeping.size?.(value));
  return value;
}

/**
 * Sums of window reads' settled days kept per store: at most SETTLED_PARTS of them, whose sizes
 * (an address's sums count one, a failing address of a domain one, a row's results one) add up
 * to at most SETTLED_PARTS_SIZE, about 200 bytes each in memory (40-60 MB at most); one of more
 * than SETTLED_PART_SIZE is never kept. The largest organization of the 10 M-record bench
 * database has 38,487 addresses in the settled days of a 30-day window, 48,961 in those of a
 * 90-day one; its usual parts (Senders for 7 and 30 days, trends' top sources, the tasks'
 * failing mail, a few domains' sources) are about 180,000, its 90-day windows 100,000 more.
 */
export const SETTLED_PARTS = 64;
export const SETTLED_PARTS_SIZE = 300_000;
export const SETTLED_PART_SIZE = 150_000;
const settledParts = new WeakMap<StoreCore, KeptAnswers>();

/** The organization's settled roll-up version (see rollup_versions' `unsettled_raises`), or null when it has none. */
export async function settledVersion(ctx: OrgContext): Promise<number | null> {
  const [row] = await ctx.store.tuples<[number | string]>(sql`SELECT version - unsettled_raises FROM rollup_versions WHERE org_id = ${ctx.actor.orgId}`);
  return row ? Number(row[0]) : null;
}

/**
 * The sums of a window of UTC days `fromDay`…`toDay` of the caller's organization's sender
 * roll-ups, as `sumDays(fromDay, toDay)` gives them for any days: those of its settled days (up to
 * `settledThrough()`) kept while the organization's settled version holds, those of the days
 * after computed afresh, the two put together by `merge` (which must change neither). New reports
 * mostly change yesterday's and today's rows, which raise the settled version only when they
 * change an older day's (rollup_versions): a window read computed again after them reads two
 * days instead of all of its own (the 10 M-record bench database's largest organization: about
 * 17,000 address-days instead of 254,035 for 30 days). `key` must name everything the sums depend
 * on besides the organization and the days; `sizeOf` what a part holds (addresses, say). The sums
 * are shared between requests: callers must not change them.
 */
export async function windowSums<P>(
  ctx: OrgContext,
  key: string,
  range: { fromDay: number; toDay: number },
  sumDays: (fromDay: number, toDay: number) => Promise<P>,
  merge: (settled: P, recent: P) => P,
  sizeOf: (part: P) => number,
): Promise<P> {
  const through = Math.min(range.toDay, settledThrough());
  if (through < range.fromDay) return sumDays(range.fromDay, range.toDay);
  const settled = settledSums(ctx, `${key}\n${range.fromDay}\n${through}`, () => sumDays(range.fromDay, through), sizeOf);
  if (through === range.toDay) return settled;
  const [old, recent] = await Promise.all([settled, sumDays(through + 1, range.toDay)]);
  return merge(old, recent);
}

/** The kept sums of settled days (windowSums), computed and kept while the settled version holds as keptRead keeps answers. */
function settledSums<P>(ctx: OrgContext, key: string, compute: () => Promise<P>, sizeOf: (part: P) => number): Promise<P> {
  return keptBy(ctx, key, compute, {
    caches: settledParts,
    make: () => new KeptAnswers({ entries: SETTLED_PARTS, size: SETTLED_PARTS_SIZE, one: SETTLED_PART_SIZE }),
    version: settledVersion,
    flight: "settled\n",
    size: sizeOf,
  });
}

/**
 * The computation of the answer `flight` (its id and version): the one under way for another
 * caller (a request, or the refresh) when it began with the same read `epoch` — no write of this
 * process has begun since — else `compute()`, made the one to join while it runs. Inside a write
 * (`epoch` null) always the caller's own, never joined. `shared`: another caller's.
 */
function computeOnce<T>(store: StoreCore, flight: string, epoch: number | null, compute: () => Promise<T>): { computation: Promise<T>; shared: boolean } {
  let under = computing.get(store);
  if (!under) computing.set(store, (under = new Map()));
  const running = epoch === null ? undefined : under.get(flight);
  if (running && running.epoch === epoch) return { computation: running.computation as Promise<T>, shared: true };
  const computation = compute();
  if (epoch !== null) {
    const table = under;
    table.set(flight, { epoch, computation });
    const done = () => {
      if (table.get(flight)?.computation === computation) table.delete(flight);
    };
    computation.then(done, done);
  }
  return { computation, shared: false };
}

/**
 * One refresh run over `store`'s kept answers (see the module comment): the number of answers
 * computed again. `nowMs` is the moment "read recently" is measured from.
 */
export async function refreshKeptAnswers(store: StoreCore, nowMs = Date.now(), budgetMs = REFRESH_BUDGET_MS, failed?: (error: unknown) => void): Promise<number> {
  const cache = kept.get(store);
  if (!cache) return 0;
  const recent = [...cache.entries].filter(([, e]) => nowMs - e.readAt <= REFRESH_READ_WITHIN_MS);
  if (!recent.length) return 0;
  const epoch = store.readEpoch();
  if (epoch === null) return 0;
  const orgIds = [...new Set(recent.map(([, e]) => e.orgId))];
  const rows = await store.tuples<[string, number | string]>(sql`SELECT org_id, version FROM rollup_versions WHERE ${oneOf(store.dialect, sql`org_id`, orgIds)}`);
  const versions = new Map(rows.map((r) => [r[0], Number(r[1])]));
  const seen = cache.seen;
  cache.seen = versions;
  const started = performance.now();
  let refreshed = 0;
  for (const [id, e] of recent) {
    const version = versions.get(e.orgId);
    // unchanged, or changed since the last run (more may follow: wait for the data to settle)
    if (version === undefined || version === e.version || seen.get(e.orgId) !== version) continue;
    if (performance.now() - started > budgetMs) break;
    // computed after the version was read, so at least as new as it (as keptRead); one that
    // fails is dropped (its next request computes it and says why) and the run goes on
    let value: unknown;
    try {
      // a request asking for it meanwhile is served this computation (and this run one under way for a request)
      value = await computeOnce(store, `${id}\n${version}`, epoch, e.compute).computation;
    } catch (error) {
      cache.drop(id);
      failed?.(error);
      continue;
    }
    // a write of this process began meanwhile (SQLite: its rows were visible): keep nothing more
    if (store.readEpoch() !== epoch) break;
    if (cache.entries.get(id) !== e) continue;
    cache.keep(id, { version, value, orgId: e.orgId, compute: e.compute, readAt: e.readAt });
    keptAnswers.inc({ outcome: "refreshed" });
    refreshed++;
  }
  return refreshed;
}

/** Refreshes `store`'s kept answers every REFRESH_EVERY_MS (serve starts it; stop() ends it). */
export function startKeptRefresh(store: StoreCore, onError?: (error: unknown) => void): Periodic {
  return periodic({ everyMs: REFRESH_EVERY_MS, run: () => refreshKeptAnswers(store, Date.now(), REFRESH_BUDGET_MS, onError), onError });
}
