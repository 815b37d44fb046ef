CREATE TABLE "daily_auth_stats" (
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"source_ip" text NOT NULL,
	"day" integer NOT NULL,
	"method" text NOT NULL,
	"auth_domain" text NOT NULL,
	"selector" text DEFAULT '' NOT NULL,
	"result" text NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "daily_auth_stats_org_id_domain_id_source_ip_day_method_auth_domain_selector_result_pk" PRIMARY KEY("org_id","domain_id","source_ip","day","method","auth_domain","selector","result")
);
--> statement-breakpoint
ALTER TABLE "daily_auth_stats" ADD CONSTRAINT "daily_auth_stats_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_auth_stats" ADD CONSTRAINT "daily_auth_stats_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Roll up the DKIM and SPF results stored before this migration (the day rule of the other roll-ups: the UTC day on which a report's date range begins).
INSERT INTO daily_auth_stats (org_id, domain_id, source_ip, day, method, auth_domain, selector, result, messages)
SELECT a.org_id, a.domain_id, r.source_ip, a.date_begin / 86400, x.method, lower(x.domain), COALESCE(x.selector, ''), x.result, SUM(r.message_count)
FROM aggregate_auth_results x
  JOIN aggregate_records r ON r.org_id = x.org_id AND r.id = x.record_id
  JOIN aggregate_reports a ON a.org_id = r.org_id AND a.id = r.report_id
WHERE x.method IN ('dkim', 'spf')
GROUP BY a.org_id, a.domain_id, r.source_ip, a.date_begin / 86400, x.method, lower(x.domain), COALESCE(x.selector, ''), x.result;
