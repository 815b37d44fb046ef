-- daily_sender_stats as a WITHOUT ROWID table, like daily_auth_stats (0021): its rows live in
-- primary-key order (organization, day, source IP, policy domain), so the views that read an
-- organization's window (top sources, Senders, the dashboard's figures) read it as one run of
-- pages instead of looking every row up from the primary-key index, and the table is stored once
-- instead of as a table plus a copy of every key. Copied in key order: appending to the new B-tree.
CREATE TABLE `__new_daily_sender_stats` (
	`org_id` text NOT NULL,
	`day` integer NOT NULL,
	`source_ip` text NOT NULL,
	`policy_domain` text NOT NULL,
	`domain_id` text NOT NULL,
	`country` text,
	`city` text,
	`messages` integer DEFAULT 0 NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	`spf_aligned` integer DEFAULT 0 NOT NULL,
	`dkim_aligned` integer DEFAULT 0 NOT NULL,
	`failed_delivered` integer DEFAULT 0 NOT NULL,
	`first_failed_at` integer,
	`last_failed_at` integer,
	`last_begin` integer NOT NULL,
	`quarantined` integer DEFAULT 0 NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `day`, `source_ip`, `policy_domain`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_daily_sender_stats` (org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, spf_aligned, dkim_aligned,
  failed_delivered, first_failed_at, last_failed_at, last_begin, quarantined, rejected)
SELECT org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, spf_aligned, dkim_aligned,
  failed_delivered, first_failed_at, last_failed_at, last_begin, quarantined, rejected FROM `daily_sender_stats`
ORDER BY org_id, day, source_ip, policy_domain;
--> statement-breakpoint
DROP TABLE `daily_sender_stats`;
--> statement-breakpoint
ALTER TABLE `__new_daily_sender_stats` RENAME TO `daily_sender_stats`;
--> statement-breakpoint
CREATE INDEX `daily_sender_stats_org_ip_idx` ON `daily_sender_stats` (`org_id`,`source_ip`,`day`);
--> statement-breakpoint
CREATE INDEX `daily_sender_stats_org_day_failing_idx` ON `daily_sender_stats` (`org_id`,`day`,`domain_id`,`source_ip`,`messages`,`passed`,`failed_delivered`,`first_failed_at`) WHERE first_failed_at IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `daily_sender_stats_org_domain_day_idx` ON `daily_sender_stats` (`org_id`,`domain_id`,`day`);
