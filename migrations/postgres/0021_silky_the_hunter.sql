DROP INDEX "organization_branding_custom_hostname_unique";--> statement-breakpoint
CREATE INDEX "organization_branding_custom_hostname_idx" ON "organization_branding" USING btree ("custom_hostname");--> statement-breakpoint
CREATE UNIQUE INDEX "organization_branding_custom_hostname_unique" ON "organization_branding" USING btree ("org_id","custom_hostname");