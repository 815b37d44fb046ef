CREATE TABLE `client_report_settings` (
	`client_org_id` text PRIMARY KEY NOT NULL,
	`contacts` text DEFAULT '[]' NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`last_sent_at` integer,
	`last_failures` text,
	`last_failed_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
