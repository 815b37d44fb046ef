-- The report list's index also holds each report's domain, so the dashboard's figures as of 30
-- days ago (each domain's last report processed by then) read the index alone instead of looking
-- every report of the organization up in the table (at 10 M records, the largest organization's
-- 6,556 reports: 3.7 ms a dashboard request on SQLite, 1.9 ms from the index). One row per report:
-- built again in 0.6 s on the 10 M-record SQLite bench database.
DROP INDEX `aggregate_reports_org_list_idx`;--> statement-breakpoint
CREATE INDEX `aggregate_reports_org_list_idx` ON `aggregate_reports` (`org_id`,`processed_at`,`date_end`,`id`,`domain_id`);