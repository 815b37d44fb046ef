-- A record names its report by the report's integer seq instead of its 36-character id, and writes
-- its header From as '' when it is its report's policy domain and its envelope From as '' when it
-- is its header From (src/features/reports/record-auth.ts, recordFroms): a stored record and its
-- index entry take about 140 bytes instead of about 240.
-- SQLite adds a NOT NULL column only with a default; the writer always gives seq (one more than the
-- largest) and the unique index refuses a second 0.
ALTER TABLE `aggregate_reports` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `aggregate_reports` SET `seq` = rowid;--> statement-breakpoint
CREATE UNIQUE INDEX `aggregate_reports_seq_unique` ON `aggregate_reports` (`seq`);--> statement-breakpoint
CREATE TABLE `__new_aggregate_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`report_seq` integer NOT NULL,
	`org_id` text NOT NULL,
	`source_ip` text NOT NULL,
	`message_count` integer NOT NULL,
	`disposition` text NOT NULL,
	`dkim_aligned` text,
	`spf_aligned` text,
	`dmarc_pass` integer NOT NULL,
	`header_from` text,
	`envelope_from` text,
	`envelope_to` text,
	`reasons` text,
	`country` text,
	`city` text,
	`dkim_results` text,
	`spf_results` text,
	FOREIGN KEY (`report_seq`) REFERENCES `aggregate_reports`(`seq`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Every record in its stored order (ids kept), its report found by its id (CROSS JOIN: records are
-- read in order, one report lookup each, no sort).
INSERT INTO `__new_aggregate_records` (`id`, `report_seq`, `org_id`, `source_ip`, `message_count`, `disposition`, `dkim_aligned`, `spf_aligned`, `dmarc_pass`,
  `header_from`, `envelope_from`, `envelope_to`, `reasons`, `country`, `city`, `dkim_results`, `spf_results`)
SELECT r.id, p.seq, r.org_id, r.source_ip, r.message_count, r.disposition, r.dkim_aligned, r.spf_aligned, r.dmarc_pass,
  CASE WHEN r.header_from = p.policy_domain THEN '' ELSE r.header_from END,
  CASE WHEN r.envelope_from = r.header_from THEN '' ELSE r.envelope_from END,
  r.envelope_to, r.reasons, r.country, r.city, r.dkim_results, r.spf_results
FROM `aggregate_records` r CROSS JOIN `aggregate_reports` p ON p.id = r.report_id
ORDER BY r.id;--> statement-breakpoint
DROP TABLE `aggregate_records`;--> statement-breakpoint
ALTER TABLE `__new_aggregate_records` RENAME TO `aggregate_records`;--> statement-breakpoint
CREATE INDEX `aggregate_records_report_idx` ON `aggregate_records` (`report_seq`);
