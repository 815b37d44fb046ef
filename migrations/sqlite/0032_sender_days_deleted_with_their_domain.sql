-- daily_sender_stats without its foreign key to domains, as on PostgreSQL (its 0029): a roll-up row
-- is written in the transaction of a report of its domain, whose own key to the domain holds, so
-- the row's domain exists by construction. Removing a domain deletes its rows by the trigger
-- `domains_delete_sender_days`, on the (org, domain, day) index, and raises its organization's
-- roll-up version once. The key's cascade looked a removed domain's rows up by the domain alone,
-- which no index of the table leads with: SQLite scanned the whole table for every domain removed
-- (one domain of the 10 M-record bench database: 17-41 s, the writer held throughout; an
-- organization's removal did it once per domain), and it checked the key at every row written.
-- The per-row version trigger on deletion goes too: rows are deleted only with their domain (the
-- trigger below) or their organization (whose version row goes with it).
-- Rebuilt in key order as a WITHOUT ROWID table (0025); a 10 M-record database's 7.6 M rows take
-- about a minute, once.
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
	`quarantined` integer DEFAULT 0 NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL,
	`spf_aligned` integer DEFAULT 0 NOT NULL,
	`dkim_aligned` integer DEFAULT 0 NOT NULL,
	`failed_delivered` integer DEFAULT 0 NOT NULL,
	`first_failed_at` integer,
	`last_failed_at` integer,
	`last_begin` integer NOT NULL,
	`auth` text,
	PRIMARY KEY(`org_id`, `day`, `source_ip`, `policy_domain`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_daily_sender_stats` (org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, quarantined, rejected,
  spf_aligned, dkim_aligned, failed_delivered, first_failed_at, last_failed_at, last_begin, auth)
SELECT org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, quarantined, rejected,
  spf_aligned, dkim_aligned, failed_delivered, first_failed_at, last_failed_at, last_begin, auth FROM `daily_sender_stats`
ORDER BY org_id, day, source_ip, policy_domain;
--> statement-breakpoint
DROP TABLE `daily_sender_stats`;
--> statement-breakpoint
ALTER TABLE `__new_daily_sender_stats` RENAME TO `daily_sender_stats`;
--> statement-breakpoint
CREATE INDEX `daily_sender_stats_org_ip_idx` ON `daily_sender_stats` (`org_id`,`source_ip`,`day`);
--> statement-breakpoint
CREATE INDEX `daily_sender_stats_org_domain_day_idx` ON `daily_sender_stats` (`org_id`,`domain_id`,`day`);
--> statement-breakpoint
CREATE INDEX `daily_sender_stats_org_day_failing_idx` ON `daily_sender_stats` (`org_id`,`day`,`domain_id`,`source_ip`,`messages`,`passed`,`failed_delivered`,`first_failed_at`) WHERE first_failed_at IS NOT NULL;
--> statement-breakpoint
CREATE TRIGGER domains_delete_sender_days AFTER DELETE ON domains BEGIN
  DELETE FROM daily_sender_stats WHERE org_id = OLD.org_id AND domain_id = OLD.id;
  UPDATE rollup_versions SET version = version + 1 WHERE org_id = OLD.org_id;
END;
