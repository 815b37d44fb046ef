-- daily_auth_stats as a WITHOUT ROWID table: its rows live in primary-key order (organization,
-- domain, source IP, day, …), so the domain page reads an IP's days as one run of pages, and the
-- table is stored once instead of as a table plus a copy of every key in its primary-key index.
-- Copied in key order: appending to the new B-tree instead of inserting all over it.
CREATE TABLE `__new_daily_auth_stats` (
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`source_ip` text NOT NULL,
	`day` integer NOT NULL,
	`method` text NOT NULL,
	`auth_domain` text NOT NULL,
	`selector` text DEFAULT '' NOT NULL,
	`result` text NOT NULL,
	`messages` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `domain_id`, `source_ip`, `day`, `method`, `auth_domain`, `selector`, `result`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_daily_auth_stats` (org_id, domain_id, source_ip, day, method, auth_domain, selector, result, messages)
SELECT org_id, domain_id, source_ip, day, method, auth_domain, selector, result, messages FROM `daily_auth_stats`
ORDER BY org_id, domain_id, source_ip, day, method, auth_domain, selector, result;
--> statement-breakpoint
DROP TABLE `daily_auth_stats`;
--> statement-breakpoint
ALTER TABLE `__new_daily_auth_stats` RENAME TO `daily_auth_stats`;
