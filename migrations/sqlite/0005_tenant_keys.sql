-- Every tenant table carries org_id: auth results take their organisation from their record.
-- SQLite cannot add a NOT NULL column to a table with rows, so the table is rebuilt and the copy
-- fills org_id through the record (records cascade to their auth results, so each has one).
CREATE TABLE `__new_aggregate_auth_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`record_id` integer NOT NULL,
	`org_id` text NOT NULL,
	`method` text NOT NULL,
	`domain` text NOT NULL,
	`selector` text,
	`scope` text,
	`result` text NOT NULL,
	`human_result` text,
	FOREIGN KEY (`record_id`) REFERENCES `aggregate_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_aggregate_auth_results` (`id`, `record_id`, `org_id`, `method`, `domain`, `selector`, `scope`, `result`, `human_result`)
SELECT a.`id`, a.`record_id`, r.`org_id`, a.`method`, a.`domain`, a.`selector`, a.`scope`, a.`result`, a.`human_result`
FROM `aggregate_auth_results` a JOIN `aggregate_records` r ON r.`id` = a.`record_id`;
--> statement-breakpoint
DROP TABLE `aggregate_auth_results`;
--> statement-breakpoint
ALTER TABLE `__new_aggregate_auth_results` RENAME TO `aggregate_auth_results`;
--> statement-breakpoint
CREATE INDEX `aggregate_auth_results_record_idx` ON `aggregate_auth_results` (`record_id`);
