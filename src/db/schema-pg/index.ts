/**
 * The PostgreSQL twin of src/db/schema: the same tables, export names, SQL names, columns,
 * defaults, indexes and foreign keys (src/db/schema-parity.test.ts holds them together), with
 * column types that give the same JS values — times are epoch seconds in `bigint`, read as Date.
 * The SQLite schema stays the canonical TypeScript type of every table.
 *
 * Toward sharding by organisation (Citus: tenant tables distributed on `org_id`, the rest
 * reference tables): these tables have no `org_id` today —
 *   - aggregate_auth_results (reaches its organisation only through aggregate_records)
 *   - organizations (the tenant itself: its `id`)
 *   - users, sessions (`current_org_id` is nullable and changes), password_tokens,
 *     email_verification_tokens (accounts span organisations)
 *   - admin_users, admin_sessions, contact_submissions, stripe_events, auth_throttle (global)
 * and no primary key includes `org_id` yet (Citus wants it in every unique key of a distributed
 * table); both are for a later change made together with the SQLite schema.
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
