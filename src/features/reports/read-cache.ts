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
 * Bounded: at most READ_CACHE_ENTRIES answers per store (least recently used go first), each at
 * most MAX_SENDERS senders, the top sources asked for, MAX_DOMAIN_SOURCES sources, or one
 * sender's page (MAX_SENDER_IPS addresses, SENDER_SAMPLES records).
 */
import { sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import type { OrgContext } from "../../http/access";

export const READ_CACHE_ENTRIES = 256;

interface Kept {
  version: number;
  value: unknown;
}

const kept = new WeakMap<StoreCore, Map<string, Kept>>();

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
  if (!cache) kept.set(store, (cache = new Map()));
  const id = `${ctx.actor.orgId}\n${key}`;
  const hit = cache.get(id);
  if (hit && hit.version === version) {
    // most recently used last
    cache.delete(id);
    cache.set(id, hit);
    return hit.value as T;
  }
  const value = await compute();
  if (store.readEpoch() !== epoch) return value;
  cache.delete(id);
  cache.set(id, { version, value });
  if (cache.size > READ_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  return value;
}
