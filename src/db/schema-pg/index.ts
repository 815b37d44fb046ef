/**
 * The PostgreSQL twin of src/db/schema: the same tables, export names, SQL names, columns,
 * defaults, indexes and foreign keys (src/db/schema-parity.test.ts holds them together), with
 * column types that give the same JS values — times are epoch seconds in `bigint`, read as Date.
 * The SQLite schema stays the canonical TypeScript type of every table.
 *
 * One deliberate difference, for sharding by organisation (Citus: tenant tables distributed on
 * `org_id`, co-located, the other tables reference tables copied to every node). A tenant table
 * is one with an `org_id` column, except `organizations` (the tenant itself). In PostgreSQL:
 *   - its primary key is `(org_id, …the SQLite key)` — `(org_id, id)` for a table keyed by id
 *     (`tenantId()` plus `primaryKey`), unchanged where the key already holds `org_id`;
 *   - every unique index holds `org_id`: a SQLite unique index on columns C without it is the
 *     same-named unique index on `(org_id, C)`, plus a plain index `<name minus _unique>_idx`
 *     on C for lookups by C alone (an invitation link carries only its token);
 *   - a foreign key to another tenant table is composite, `(org_id, x_id)` → `(org_id, id)`,
 *     with the same on-delete action, so a row can only point at rows of its own organisation;
 *     foreign keys to `organizations` and to account tables stay single-column.
 * Everything else matches exactly; src/db/schema-parity.test.ts holds the rule. Tables without
 * `org_id` are account or global tables (reference tables when sharded): organizations; users,
 * sessions (`current_org_id` is nullable and changes), password_tokens,
 * email_verification_tokens (accounts span organisations); admin_users, admin_sessions,
 * contact_submissions, stripe_events, auth_throttle, job_leases.
 */
export * from "./accounts";
export * from "./admin";
export * from "./contact";
export * from "./domains";
export * from "./settings";
export * from "./invitations";
export * from "./billing";
export * from "./mailboxes";
export * from "./reports";
export * from "./dns";
export * from "./password-tokens";
export * from "./auth-throttle";
export * from "./jobs";
export * from "./rollups";
export * from "./alerts";
export * from "./two-factor";
export * from "./api-tokens";
export * from "./audit";
export * from "./sso";
export * from "./branding";
export * from "./client-reports";
