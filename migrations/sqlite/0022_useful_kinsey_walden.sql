ALTER TABLE `organization_branding` ADD `custom_hostname_status` text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE `organization_branding` ADD `custom_hostname_checked_at` integer;