DROP INDEX `organization_branding_custom_hostname_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `organization_branding_custom_hostname_unique` ON `organization_branding` (`custom_hostname`) WHERE "organization_branding"."custom_hostname_status" = 'verified';--> statement-breakpoint
ALTER TABLE `sso_connections` ADD `proved_domains` text DEFAULT '[]' NOT NULL;