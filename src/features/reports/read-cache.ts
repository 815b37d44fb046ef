/**
 * Answers of the heaviest roll-up reads, kept by the server between requests: the Senders list,
 * trends' top sources, the sender page and a domain's sources (its readiness and enforcement
 * pages) sum every address of a window (at 10 M records the largest organization's 30 days are a
 * quarter of a million address-days), while a user moving between screens, ranges and domains
 * asks the same again and again.
 *
 * An answer is kept with its organization's roll-up version (`rollup_versions`), a counter the
 * database's triggers raise in the same transaction as every change to what those reads read
 * (`daily_sender_stats`, `daily_auth_stats`, `source_names`, `sender_marks`: migration 0026 /
 * PostgreSQL 0024; the sender page's sample records are stored with their report's roll-ups, and
 * the retention purge raises it with the records it deletes). Each request reads the counter
 * first (one primary-key read) and serves the kept answer only while it holds, so an answer is
 * never older than the data, whichever server (of several on one database) wrote. The window's
 * days are part of each key, so a new UTC day asks afresh. What is not in the roll-ups is never
 * kept: a domain's readiness looks its DNS up on every request, around its kept sources. An
 * answer computed while a write of this process was open (SQLite reads on the shared connection
 * would see data not yet committed) or began is served but not kept.
 *
 * Bounded: at most READ_CACHE_ENTRIES answers and READ_CACHE_CHARS of their JSON text per store
 * (least recently used go first; one answer larger than READ_CACHE_ANSWER_CHARS is never kept).
 */
import { sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import type { OrgContext } from "../../http/access";

export const READ_CACHE_ENTRIES = 256;
/** at most this much answer kept per store, measured as the answers' JSON text (characters) */
export const READ_CACHE_CHARS = 32 * 1024 * 1024;
/** an answer larger than this (an organization of thousands of domains, say) is served, never kept */
export const READ_CACHE_ANSWER_CHARS = 4 * 1024 * 1024;

interface Kept {
  version: number;
  value: unknown;
  chars: number;
}

/** One store's kept answers, least recently used first. */
export class KeptAnswers {
  readonly entries = new Map<string, Kept>();
  chars = 0;

  get(id: string, version: number): Kept | undefined {
    const hit = this.entries.get(id);
    if (!hit || hit.version !== version) return undefined;
    this.entries.delete(id);
    this.entries.set(id, hit);
    return hit;
  }

  keep(id: string, version: number, value: unknown): void {
    this.drop(id);
    const chars = JSON.stringify(value)?.length ?? 0;
    if (chars > READ_CACHE_ANSWER_CHARS) return;
    this.entries.set(id, { version, value, chars });
    this.chars += chars;
    for (const [oldest] of this.entries) {
      if (this.entries.size <= READ_CACHE_ENTRIES && this.chars <= READ_CACHE_CHARS) break;
      this.drop(oldest);
    }
  }

  private drop(id: string): void {
    const had = this.entries.get(id);
    if (!had) return;
    this.entries.delete(id);
    this.chars -= had.chars;
  }
}

const kept = new WeakMap<StoreCore, KeptAnswers>();

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
  const store = ctx.store;
  const epoch = store.readEpoch();
  if (epoch === null) return compute();
  const version = await rollupVersion(ctx);
  if (version === null) return compute();
  let cache = kept.get(store);
  if (!cache) kept.set(store, (cache = new KeptAnswers()));
  const id = `${ctx.actor.orgId}\n${key}`;
  const hit = cache.get(id, version);
  if (hit) return hit.value as T;
  const value = await compute();
  if (store.readEpoch() === epoch) cache.keep(id, version, value);
  return value;
}
