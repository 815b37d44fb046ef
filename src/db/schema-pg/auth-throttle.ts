import { bigint, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

export const authThrottle = pgTable(
  "auth_throttle",
  {
    bucket: text("bucket").notNull(),
    key: text("key").notNull(),
    /** epoch seconds, a plain number as in SQLite (compared and stored by raw SQL) */
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
    nextAt: bigint("next_at", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.bucket, t.key] })],
);
