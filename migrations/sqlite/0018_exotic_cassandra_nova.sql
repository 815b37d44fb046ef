CREATE TABLE `dkim_selectors_seen` (
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`auth_domain` text NOT NULL,
	`selector` text NOT NULL,
	`last_begin` integer NOT NULL,
	`results` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `domain_id`, `auth_domain`, `selector`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- The DKIM selectors of the results stored before this migration.
INSERT INTO dkim_selectors_seen (org_id, domain_id, auth_domain, selector, last_begin, results)
SELECT a.org_id, a.domain_id, lower(x.domain), lower(x.selector), MAX(a.date_begin), COUNT(*)
FROM aggregate_auth_results x JOIN aggregate_records r ON r.id = x.record_id JOIN aggregate_reports a ON a.id = r.report_id
WHERE x.method = 'dkim' AND x.selector IS NOT NULL AND x.selector <> ''
GROUP BY a.org_id, a.domain_id, lower(x.domain), lower(x.selector);
