CREATE TABLE `domain_record_history` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`checked_at` integer NOT NULL,
	`dmarc_record` text,
	`spf_record` text,
	`dkim_record` text,
	`dmarc_policy` text NOT NULL,
	`spf_status` text NOT NULL,
	`dkim_status` text NOT NULL,
	`overall_status` text NOT NULL,
	`changed` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `domain_record_history_domain_idx` ON `domain_record_history` (`domain_id`,`checked_at`);