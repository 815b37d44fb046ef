import { integer, text } from "drizzle-orm/sqlite-core";

/** Random text primary key: ids in URLs reveal nothing about other tenants' row counts. */
export const id = () => text("id").primaryKey().$defaultFn(() => crypto.randomUUID());
/** UTC timestamps stored as epoch seconds; drizzle hands them out as Date. */
export const createdAt = () => integer("created_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date());
export const timestamp = (name: string) => integer(name, { mode: "timestamp" });
