import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";

export const jobLeases = pgTable(
  "job_leases",
  {
    key: text("key").primaryKey(),
    holder: text("holder").notNull(),
    /** epoch seconds, a plain number as in SQLite (compared by raw SQL) */
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [index("job_leases_expires_idx").on(t.expiresAt)],
);
