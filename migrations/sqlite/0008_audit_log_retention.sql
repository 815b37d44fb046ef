CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`actor_label` text NOT NULL,
	`action` text NOT NULL,
	`target` text,
	`address` text,
	`data` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_log_org_time_idx` ON `audit_log` (`org_id`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_org_action_idx` ON `audit_log` (`org_id`,`action`,`at`);--> statement-breakpoint
CREATE INDEX `audit_log_org_actor_idx` ON `audit_log` (`org_id`,`actor_id`,`at`);--> statement-breakpoint
ALTER TABLE `organization_settings` ADD `retention_aggregate_days` integer DEFAULT 400 NOT NULL;--> statement-breakpoint
ALTER TABLE `organization_settings` ADD `retention_failure_days` integer DEFAULT 90 NOT NULL;