CREATE TABLE `daily_auth_stats` (
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
);
--> statement-breakpoint
-- Roll up the DKIM and SPF results stored before this migration (the day rule of the other roll-ups: the UTC day on which a report's date range begins).
INSERT INTO daily_auth_stats (org_id, domain_id, source_ip, day, method, auth_domain, selector, result, messages)
SELECT a.org_id, a.domain_id, r.source_ip, a.date_begin / 86400, x.method, lower(x.domain), COALESCE(x.selector, ''), x.result, SUM(r.message_count)
FROM aggregate_auth_results x JOIN aggregate_records r ON r.id = x.record_id JOIN aggregate_reports a ON a.id = r.report_id
WHERE x.method IN ('dkim', 'spf')
GROUP BY a.org_id, a.domain_id, r.source_ip, a.date_begin / 86400, x.method, lower(x.domain), COALESCE(x.selector, ''), x.result;
