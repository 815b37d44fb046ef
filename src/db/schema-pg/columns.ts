import { customType, text } from "drizzle-orm/pg-core";

/**
 * UTC timestamps stored as epoch seconds in a `bigint`, handed out as Date — the same values
 * SQLite's `integer({ mode: "timestamp" })` stores, so raw SQL arithmetic on times (`date_begin
 * + 86400`, `< $now`) reads the same in both dialects. The driver hands int8 back as a string.
 */
export const epoch = customType<{ data: Date; driverData: string | number | bigint }>({
  dataType: () => "bigint",
  toDriver: (value) => Math.floor(value.getTime() / 1000),
  fromDriver: (value) => new Date(Number(value) * 1000),
});

/** Random text primary key: ids in URLs reveal nothing about other tenants' row counts. */
export const id = () => text("id").primaryKey().$defaultFn(() => crypto.randomUUID());
/**
 * The same random id in a tenant table, whose primary key is `(org_id, id)` (declared with the
 * table's `primaryKey`): see the rule in ./index.ts.
 */
export const tenantId = () => text("id").notNull().$defaultFn(() => crypto.randomUUID());
export const createdAt = () => epoch("created_at").notNull().$defaultFn(() => new Date());
export const timestamp = (name: string) => epoch(name);
