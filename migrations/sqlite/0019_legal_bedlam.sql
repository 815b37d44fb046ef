CREATE TABLE `daily_country_stats` (
	`org_id` text NOT NULL,
	`day` integer NOT NULL,
	`domain_id` text NOT NULL,
	`country` text NOT NULL,
	`messages` integer DEFAULT 0 NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `day`, `domain_id`, `country`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);

--> statement-breakpoint
-- Roll up the source days stored before this migration per country ('' for the unlocated).
INSERT INTO daily_country_stats (org_id, day, domain_id, country, messages, passed)
SELECT org_id, day, domain_id, COALESCE(country, ''), SUM(messages), SUM(passed)
FROM daily_source_stats
GROUP BY org_id, day, domain_id, COALESCE(country, '');
