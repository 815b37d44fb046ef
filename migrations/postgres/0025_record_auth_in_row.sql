-- A record carries its DKIM and SPF results (compact JSON arrays, src/features/reports/record-auth.ts)
-- instead of two rows of aggregate_auth_results each, and no longer copies its address's reverse DNS
-- name and sending service, which the organization's source_names row holds, nor its report's
-- period start: an organization's records of a period are its reports' of the period (their
-- (org_id, date_begin) index), so records are indexed by report only. A stored record takes about
-- half the bytes it took, and a report's write one row and one index entry per record instead of
-- three rows and four entries.
ALTER TABLE "aggregate_records" ADD COLUMN "dkim_results" text;--> statement-breakpoint
ALTER TABLE "aggregate_records" ADD COLUMN "spf_results" text;--> statement-breakpoint
-- Each record's results from its auth result rows, in the order they were stored (their ids);
-- none of a method: null.
UPDATE aggregate_records AS r SET dkim_results = g.dkim, spf_results = g.spf
FROM (
  SELECT org_id, record_id,
    (json_agg(CASE WHEN human_result IS NULL THEN json_build_array(domain, selector, result) ELSE json_build_array(domain, selector, result, human_result) END ORDER BY id) FILTER (WHERE method = 'dkim'))::text AS dkim,
    (json_agg(CASE WHEN human_result IS NULL THEN json_build_array(domain, scope, result) ELSE json_build_array(domain, scope, result, human_result) END ORDER BY id) FILTER (WHERE method = 'spf'))::text AS spf
  FROM (
    -- a domain that is the record's header From domain is written 0
    SELECT x.org_id, x.record_id, x.id, x.method, CASE WHEN x.domain = r.header_from THEN to_json(0) ELSE to_json(x.domain) END AS domain, x.selector, x.scope, x.result, x.human_result
    FROM aggregate_auth_results x JOIN aggregate_records r ON r.org_id = x.org_id AND r.id = x.record_id
  ) AS x
  GROUP BY org_id, record_id
) AS g
WHERE r.org_id = g.org_id AND r.id = g.record_id;--> statement-breakpoint
-- A name a record held that its organization's source_names row lacks (rows written before
-- source_names existed) is kept there.
INSERT INTO source_names (org_id, source_ip, ptr, base_domain, service, service_type)
SELECT DISTINCT ON (org_id, source_ip) org_id, source_ip, ptr, base_domain, service, service_type FROM aggregate_records
WHERE ptr IS NOT NULL
ON CONFLICT (org_id, source_ip) DO NOTHING;--> statement-breakpoint
DROP TABLE "aggregate_auth_results" CASCADE;--> statement-breakpoint
DROP INDEX "aggregate_records_org_date_idx";--> statement-breakpoint
ALTER TABLE "aggregate_records" DROP COLUMN "date_begin";--> statement-breakpoint
ALTER TABLE "aggregate_records" DROP COLUMN "ptr";--> statement-breakpoint
ALTER TABLE "aggregate_records" DROP COLUMN "base_domain";--> statement-breakpoint
ALTER TABLE "aggregate_records" DROP COLUMN "service";--> statement-breakpoint
ALTER TABLE "aggregate_records" DROP COLUMN "service_type";
