-- A record carries its DKIM and SPF results (compact JSON arrays, src/features/reports/record-auth.ts)
-- instead of two rows of aggregate_auth_results each, and no longer copies its address's reverse DNS
-- name and sending service, which the organization's source_names row holds, nor its report's
-- period start: an organization's records of a period are its reports' of the period (their
-- (org_id, date_begin) index), so records are indexed by report only. A stored record takes about
-- half the bytes it took, and a report's write one row and one index entry per record instead of
-- three rows and four entries.
ALTER TABLE `aggregate_records` ADD `dkim_results` text;--> statement-breakpoint
ALTER TABLE `aggregate_records` ADD `spf_results` text;--> statement-breakpoint
-- Each record's results from its auth result rows, in the order they were stored (their ids),
-- read by the record index one record at a time (no sort or copy of all rows: memory stays flat);
-- a domain that is the record's header From domain is written 0; none of a method: null.
UPDATE aggregate_records SET
  dkim_results = (
    SELECT NULLIF(json_group_array(CASE WHEN x.human_result IS NULL THEN json_array(x.domain, x.selector, x.result) ELSE json_array(x.domain, x.selector, x.result, x.human_result) END), '[]')
    FROM (
      SELECT CASE WHEN a.domain = aggregate_records.header_from THEN 0 ELSE a.domain END AS domain, a.selector, a.result, a.human_result
      FROM aggregate_auth_results a WHERE a.record_id = aggregate_records.id AND a.method = 'dkim' ORDER BY a.id
    ) AS x
  ),
  spf_results = (
    SELECT NULLIF(json_group_array(CASE WHEN x.human_result IS NULL THEN json_array(x.domain, x.scope, x.result) ELSE json_array(x.domain, x.scope, x.result, x.human_result) END), '[]')
    FROM (
      SELECT CASE WHEN a.domain = aggregate_records.header_from THEN 0 ELSE a.domain END AS domain, a.scope, a.result, a.human_result
      FROM aggregate_auth_results a WHERE a.record_id = aggregate_records.id AND a.method = 'spf' ORDER BY a.id
    ) AS x
  );--> statement-breakpoint
-- A name a record held that its organization's source_names row lacks (rows written before
-- source_names existed) is kept there.
INSERT INTO source_names (org_id, source_ip, ptr, base_domain, service, service_type)
SELECT org_id, source_ip, ptr, base_domain, service, service_type FROM aggregate_records
WHERE ptr IS NOT NULL
ON CONFLICT (org_id, source_ip) DO NOTHING;--> statement-breakpoint
DROP TABLE `aggregate_auth_results`;--> statement-breakpoint
DROP INDEX `aggregate_records_org_date_idx`;--> statement-breakpoint
ALTER TABLE `aggregate_records` DROP COLUMN `date_begin`;--> statement-breakpoint
ALTER TABLE `aggregate_records` DROP COLUMN `ptr`;--> statement-breakpoint
ALTER TABLE `aggregate_records` DROP COLUMN `base_domain`;--> statement-breakpoint
ALTER TABLE `aggregate_records` DROP COLUMN `service`;--> statement-breakpoint
ALTER TABLE `aggregate_records` DROP COLUMN `service_type`;
