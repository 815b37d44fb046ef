import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";

/**
 * White-label branding of an MSP (or any organisation on a plan that allows it): product name,
 * primary colour, support email and logo (PNG or JPEG, at most 256 KB, base64 in the database).
 * Its client organisations see it. One row per organisation; null columns fall back to the default.
 * `custom_hostname`: the MSP's own host name for the deployment (lower case): requests with that
 * Host get its branding, and its organisations' mail links point there — only once
 * `custom_hostname_status` is 'verified' (its DNS points at the deployment and holds the
 * organisation's proof record); 'pending' until checked, 'failed' when the last check did not
 * find both. Several organisations may have typed the same name, but only one holds it verified
 * (the partial unique index). `custom_hostname_checked_at`: the last check.
 */
export const organizationBranding = sqliteTable(
  "organization_branding",
  {
    orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
    productName: text("product_name"),
    /** #rrggbb */
    primaryColor: text("primary_color"),
    supportEmail: text("support_email"),
    /** image/png or image/jpeg; null: no logo */
    logoType: text("logo_type"),
    logoBase64: text("logo_base64"),
    logoUpdatedAt: integer("logo_updated_at", { mode: "timestamp" }),
    updatedAt: integer("updated_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date()),
    customHostname: text("custom_hostname"),
    /** pending | verified | failed */
    customHostnameStatus: text("custom_hostname_status").notNull().default("pending"),
    customHostnameCheckedAt: integer("custom_hostname_checked_at", { mode: "timestamp" }),
  },
  (t) => [uniqueIndex("organization_branding_custom_hostname_unique").on(t.customHostname).where(sql`${t.customHostnameStatus} = 'verified'`)],
);
