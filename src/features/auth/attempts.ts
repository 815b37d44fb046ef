/**
 * Attempt counters in the database (table auth_throttle), shared by every app node. Each
 * count is one INSERT … ON CONFLICT DO UPDATE … RETURNING statement, valid on SQLite and
 * PostgreSQL: the attempt is counted before anything else happens, so a burst of parallel
 * requests sees 1, 2, 3, … and never the same stale count.
 */
import { and, eq, gt, sql } from "drizzle-orm";
import type { DB } from "../../db";
import { authThrottle } from "../../db/schema";

const epoch = (now: Date) => Math.floor(now.getTime() / 1000);

/** Counts one attempt in a fixed window and returns how many the window now holds (this one included). */
export function countAttempt(db: DB, bucket: string, key: string, windowSeconds: number, now: Date): { count: number; retryAfter: number } {
  const t = epoch(now);
  const expired = sql`auth_throttle.window_start <= ${t - windowSeconds}`;
  const row = db
    .insert(authThrottle)
    .values({ bucket, key, windowStart: t, count: 1 })
    .onConflictDoUpdate({
      target: [authThrottle.bucket, authThrottle.key],
      set: {
        count: sql`CASE WHEN ${expired} THEN 1 ELSE auth_throttle.count + 1 END`,
        windowStart: sql`CASE WHEN ${expired} THEN ${t} ELSE auth_throttle.window_start END`,
      },
    })
    .returning({ count: authThrottle.count, windowStart: authThrottle.windowStart })
    .get()!;
  return { count: row.count, retryAfter: Math.max(1, row.windowStart + windowSeconds - t) };
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
export function paceAttempt(db: DB, bucket: string, key: string, pace: Pace, now: Date): { allowed: true } | { allowed: false; retryAfter: number } {
  const t = epoch(now);
  const expired = sql`auth_throttle.window_start <= ${t - pace.windowSeconds}`;
  // pause after the n-th attempt: first × 2^(n - free - 1), capped (steps counted so the shift stays small)
  const steps = Math.ceil(Math.log2(pace.maxPauseSeconds / pace.firstPauseSeconds)) + 1;
  const over = sql`(auth_throttle.count + 1 - ${pace.free})`;
  const pause = sql`CASE WHEN ${over} <= 0 THEN 0 WHEN ${over} >= ${steps} THEN ${pace.maxPauseSeconds} ELSE ${sql.raw(String(pace.firstPauseSeconds))} * (1 << (${over} - 1)) END`;
  const rows = db
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
    .returning({ count: authThrottle.count })
    .all();
  if (rows.length) return { allowed: true };
  const row = db.select({ nextAt: authThrottle.nextAt }).from(authThrottle).where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key))).get();
  return { allowed: false, retryAfter: Math.max(1, (row?.nextAt ?? t) - t) };
}

/** Gives one attempt back (a success that should not use up the shared budget). */
export function refundAttempt(db: DB, bucket: string, key: string): void {
  db.update(authThrottle)
    .set({ count: sql`auth_throttle.count - 1` })
    .where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key), gt(authThrottle.count, 0)))
    .run();
}

export function clearAttempts(db: DB, bucket: string, key: string): void {
  db.delete(authThrottle).where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key))).run();
}

/** Records (or renews) a mark, e.g. "this address signed in to this account"; hasMark tells whether it is recent. */
export function setMark(db: DB, bucket: string, key: string, now: Date): void {
  const t = epoch(now);
  db.insert(authThrottle)
    .values({ bucket, key, windowStart: t, count: 1 })
    .onConflictDoUpdate({ target: [authThrottle.bucket, authThrottle.key], set: { windowStart: t, count: 1 } })
    .run();
}

export function hasMark(db: DB, bucket: string, key: string, seconds: number, now: Date): boolean {
  const t = epoch(now);
  return !!db
    .select({ count: authThrottle.count })
    .from(authThrottle)
    .where(and(eq(authThrottle.bucket, bucket), eq(authThrottle.key, key), gt(authThrottle.windowStart, t - seconds)))
    .get();
}

/** Forgets counters whose window ended long ago (marks live `keepMarksSeconds`, counters a day). */
export function sweepAttempts(db: DB, marks: string[], keepMarksSeconds: number, now: Date): void {
  const t = epoch(now);
  const inMarks = marks.length ? sql.join(marks.map((m) => sql`${m}`), sql`, `) : sql`''`;
  db.delete(authThrottle)
    .where(sql`(auth_throttle.bucket IN (${inMarks}) AND auth_throttle.window_start <= ${t - keepMarksSeconds}) OR (auth_throttle.bucket NOT IN (${inMarks}) AND auth_throttle.window_start <= ${t - 86400})`)
    .run();
}
