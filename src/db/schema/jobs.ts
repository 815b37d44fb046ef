import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Leases on scheduled work (a domain's DNS check, a mailbox poll, …), so that each job runs
 * once per interval however many app nodes share the database: a node runs a job only after
 * claiming its lease with one atomic statement, and the lease lapses by itself when the node
 * dies. Not tenant data: keys name the job, e.g. "dns-check:<domain id>".
 */
export const jobLeases = sqliteTable(
  "job_leases",
  {
    key: text("key").primaryKey(),
    /** the node that holds the lease (a random id per process) */
    holder: text("holder").notNull(),
    /** epoch seconds when the lease lapses */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("job_leases_expires_idx").on(t.expiresAt)],
);
