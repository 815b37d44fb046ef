DROP INDEX `aggregate_reports_org_processed_idx`;--> statement-breakpoint
CREATE INDEX `aggregate_reports_org_list_idx` ON `aggregate_reports` (`org_id`,`processed_at`,`date_end`,`id`);