import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { epoch } from "./columns";

export const organizationBranding = pgTable(
  "organization_branding",
  {
    orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
    productName: text("product_name"),
    primaryColor: text("primary_color"),
    supportEmail: text("support_email"),
    logoType: text("logo_type"),
    logoBase64: text("logo_base64"),
    logoUpdatedAt: epoch("logo_updated_at"),
    updatedAt: epoch("updated_at").notNull().$defaultFn(() => new Date()),
    customHostname: text("custom_hostname"),
    customHostnameStatus: text("custom_hostname_status").notNull().default("pending"),
    customHostnameCheckedAt: epoch("custom_hostname_checked_at"),
  },
  // sharded by organization, PostgreSQL keeps org_id in every unique index: one organization's
  // name is unique per row here, and a verified name across organizations by the service's check,
  // which runs serializable (two verifications at once: one is retried and sees the other)
  (t) => [uniqueIndex("organization_branding_custom_hostname_unique").on(t.orgId, t.customHostname), index("organization_branding_custom_hostname_idx").on(t.customHostname)],
);
