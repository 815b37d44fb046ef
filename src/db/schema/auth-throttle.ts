import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Fixed-window attempt counters (sign-in failures, password-link requests, …), one row per
 * bucket and key. Kept in the database so every app node sees the same count, and bumped with
 * one INSERT … ON CONFLICT DO UPDATE … RETURNING so parallel requests never read a stale value.
 */
export const authThrottle = sqliteTable(
  "auth_throttle",
  {
    /** what is counted, e.g. "login:pair" */
    bucket: text("bucket").notNull(),
    key: text("key").notNull(),
    /** epoch seconds at which the current window started */
    windowStart: integer("window_start").notNull(),
    count: integer("count").notNull(),
    /** epoch seconds before which a paced bucket refuses the next attempt (0: no pause) */
    nextAt: integer("next_at").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.key] })],
);
