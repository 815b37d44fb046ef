/**
 * Leases on scheduled jobs: a job (a domain's DNS check, a mailbox poll) runs on the node that
 * claims its lease, once per lease period, however many nodes share the database. One atomic
 * statement claims a free or lapsed lease — `INSERT … ON CONFLICT DO UPDATE … WHERE lapsed
 * RETURNING`, valid on SQLite and PostgreSQL alike — so two nodes asking at once get one yes.
 * A lease is kept for the whole period (not released when the job ends), which is what makes
 * "once per interval" hold; a node that dies simply lets its leases lapse.
 */
import { sql } from "drizzle-orm";
import type { StoreCore } from "./store";

/** A random id per process: who holds a lease (shows up in logs when debugging a cluster). */
export const NODE_ID = crypto.randomUUID();

/**
 * Claims `key` for `seconds` from `now` if nobody holds it or its lease has lapsed. Returns
 * true when this node now holds it (also when it already did and the lease lapsed).
 */
export async function claimLease(store: StoreCore, key: string, seconds: number, now: Date, holder: string = NODE_ID): Promise<boolean> {
  const at = Math.floor(now.getTime() / 1000);
  const until = at + Math.max(1, Math.floor(seconds));
  const rows = await store.write(() =>
    store.rows<{ key: string }>(
      sql`INSERT INTO job_leases (key, holder, expires_at) VALUES (${key}, ${holder}, ${until})
          ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
          WHERE job_leases.expires_at <= ${at}
          RETURNING key`,
    ),
  );
  return rows.length === 1;
}

/** Gives a lease back early (e.g. a job that failed and should be retried by any node soon). */
export async function releaseLease(store: StoreCore, key: string, holder: string = NODE_ID): Promise<void> {
  await store.write(() => store.rows(sql`DELETE FROM job_leases WHERE key = ${key} AND holder = ${holder} RETURNING key`));
}

/** Removes leases that lapsed long ago (keys of deleted domains and mailboxes). */
export async function sweepLeases(store: StoreCore, now: Date, olderThanSeconds = 7 * 86_400): Promise<number> {
  const cutoff = Math.floor(now.getTime() / 1000) - olderThanSeconds;
  const rows = await store.write(() => store.rows(sql`DELETE FROM job_leases WHERE expires_at < ${cutoff} RETURNING key`));
  return rows.length;
}

/** Which of `keys` someone holds at `now` (a read: lets a scheduler skip jobs already done without a write per key). */
export async function leasesHeld(store: StoreCore, keys: string[], now: Date): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const at = Math.floor(now.getTime() / 1000);
  const rows = await store.rows<{ key: string }>(sql`SELECT key FROM job_leases WHERE expires_at > ${at} AND key IN (${sql.join(keys.map((k) => sql`${k}`), sql`, `)})`);
  return new Set(rows.map((r) => r.key));
}
