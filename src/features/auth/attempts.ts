/**
 * Attempt counters in the database (table auth_throttle), shared by every app node: sign-in
 * throttling (throttle.ts) and the request rate limits (http/rate-limit.ts) count here. Each
 * count is one INSERT … ON CONFLICT DO UPDATE … RETURNING statement, valid on SQLite and
 * PostgreSQL: the attempt is counted before anything else happens, so a burst of parallel
 * requests sees 1, 2, 3, … and never the same stale count.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";

const epoch = (now: Date) => Math.floor(now.getTime() / 1000);

/** Counts one attempt in a fixed window and returns how many the window now holds (this one included). */
export async function countAttempt(store: StoreCore, bucket: string, key: string, windowSeconds: number, now: Date): Promise<{ count: number; retryAfter: number }> {
  const { authThrottle } = store.t;
  const t = epoch(now);
  const expired = sql`auth_throttle.window_start <= ${t - windowSeconds}`;
  const [row] = await store.write((tx) =>
    tx
      .insert(authThrottle)
      .values({ bucket, key, windowStart: t, count: 1 })
      .onConflictDoUpdate({
        target: [authThrottle.bucket, authThrottle.key],
        set: {
          count: sql`CASE WHEN ${expired} THEN 1 ELSE auth_throttle.count + 1 END`,
          windowStart: sql`CASE WHEN ${expired} THEN ${t} ELSE auth_throttle.window_start END`,
        },
      })
      .returning({ count: authThrottle.count, windowStart: authThrottle.windowStart }),
  );
  const count = Number(row!.count);
  return { count, retryAfter: Math.max(1, Number(row!.windowStart) + windowSeconds - t) };
}

/** How many attempts the key's current window holds (0 when its window has ended). */
export async function attemptsInWindow(store: StoreCore, bucket: string, key: string, windowSeconds: number, now: Date): Promise<number> {
  const { authThrottle } = store.t;
  const [row] = await store.db
    .select({ count: authThrottle.count })
    .from(authThrottle)
    .where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key), gt(authThrottle.windowStart, epoch(now) - windowSeconds)));
  return row ? Number(row.count) : 0;
}

export interface Pace {
  windowSeconds: number;
  /** attempts in a window before pauses start */
  free: number;
  /** the first pause; each further attempt doubles it */
  firstPauseSeconds: number;
  maxPauseSeconds: number;
}

/**
 * Counts one attempt against a paced bucket: the first `free` attempts of a window pass, then
 * each allowed attempt sets a pause (doubling, capped) before the next one is allowed. An attempt
 * inside the pause is refused and not counted, so it does not lengthen the pause. The check and
 * the count are the same statement (its WHERE refuses), so parallel attempts cannot all pass.
 */
export async function paceAttempt(store: StoreCore, bucket: string, key: string, pace: Pace, now: Date): Promise<{ allowed: true } | { allowed: false; retryAfter: number }> {
  const { authThrottle } = store.t;
  const t = epoch(now);
  const expired = sql`auth_throttle.window_start <= ${t - pace.windowSeconds}`;
  // pause after the n-th attempt: first × 2^(n - free - 1), capped (steps counted so the shift stays small)
  const steps = Math.ceil(Math.log2(pace.maxPauseSeconds / pace.firstPauseSeconds)) + 1;
  const over = sql`(auth_throttle.count + 1 - ${pace.free})`;
  const pause = sql`CASE WHEN ${over} <= 0 THEN 0 WHEN ${over} >= ${steps} THEN ${pace.maxPauseSeconds} ELSE ${sql.raw(String(pace.firstPauseSeconds))} * (1 << (${over} - 1)) END`;
  const rows = await store.write((tx) =>
    tx
      .insert(authThrottle)
      .values({ bucket, key, windowStart: t, count: 1, nextAt: t })
      .onConflictDoUpdate({
        target: [authThrottle.bucket, authThrottle.key],
        set: {
          count: sql`CASE WHEN ${expired} THEN 1 ELSE auth_throttle.count + 1 END`,
          windowStart: sql`CASE WHEN ${expired} THEN ${t} ELSE auth_throttle.window_start END`,
          nextAt: sql`CASE WHEN ${expired} THEN ${t} ELSE ${t} + ${pause} END`,
        },
        setWhere: sql`${expired} OR auth_throttle.next_at <= ${t}`,
      })
      .returning({ count: authThrottle.count }),
  );
  if (rows.length) return { allowed: true };
  const [row] = await store.db.select({ nextAt: authThrottle.nextAt }).from(authThrottle).where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key)));
  return { allowed: false, retryAfter: Math.max(1, Number(row?.nextAt ?? t) - t) };
}

/** Gives one attempt back (a success that should not use up the shared budget). */
export async function refundAttempt(store: StoreCore, bucket: string, key: string): Promise<void> {
  const { authThrottle } = store.t;
  await store.write((tx) =>
    tx
      .update(authThrottle)
      .set({ count: sql`auth_throttle.count - 1` })
      .where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key), gt(authThrottle.count, 0))),
  );
}

export async function clearAttempts(store: StoreCore, bucket: string, key: string): Promise<void> {
  const { authThrottle } = store.t;
  await store.write((tx) => tx.delete(authThrottle).where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key))));
}

/** Records (or renews) a mark, e.g. "this address signed in to this account"; hasMark tells whether it is recent. */
export async function setMark(store: StoreCore, bucket: string, key: string, now: Date): Promise<void> {
  const { authThrottle } = store.t;
  const t = epoch(now);
  await store.write((tx) =>
    tx
      .insert(authThrottle)
      .values({ bucket, key, windowStart: t, count: 1 })
      .onConflictDoUpdate({ target: [authThrottle.bucket, authThrottle.key], set: { windowStart: t, count: 1 } }),
  );
}

export async function hasMark(store: StoreCore, bucket: string, key: string, seconds: number, now: Date): Promise<boolean> {
  return (await attemptsInWindow(store, bucket, key, seconds, now)) > 0;
}

/** Forgets counters whose window ended long ago (marks live `keepMarksSeconds`, counters a day). */
export async function sweepAttempts(store: StoreCore, marks: string[], keepMarksSeconds: number, now: Date): Promise<void> {
  const t = epoch(now);
  const inMarks = marks.length ? sql.join(marks.map((m) => sql`${m}`), sql`, `) : sql`''`;
  await store.write((tx) =>
    tx
      .delete(store.t.authThrottle)
      .where(sql`(auth_throttle.bucket IN (${inMarks}) AND auth_throttle.window_start <= ${t - keepMarksSeconds}) OR (auth_throttle.bucket NOT IN (${inMarks}) AND auth_throttle.window_start <= ${t - 86400})`),
  );
}
