CREATE TABLE "dkim_selectors_seen" (
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"auth_domain" text NOT NULL,
	"selector" text NOT NULL,
	"last_begin" bigint NOT NULL,
	"results" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "dkim_selectors_seen_org_id_domain_id_auth_domain_selector_pk" PRIMARY KEY("org_id","domain_id","auth_domain","selector")
);
--> statement-breakpoint
ALTER TABLE "dkim_selectors_seen" ADD CONSTRAINT "dkim_selectors_seen_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dkim_selectors_seen" ADD CONSTRAINT "dkim_selectors_seen_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- The DKIM selectors of the results stored before this migration.
INSERT INTO dkim_selectors_seen (org_id, domain_id, auth_domain, selector, last_begin, results)
SELECT a.org_id, a.domain_id, lower(x.domain), lower(x.selector), MAX(a.date_begin), COUNT(*)
FROM aggregate_auth_results x JOIN aggregate_records r ON r.org_id = x.org_id AND r.id = x.record_id JOIN aggregate_reports a ON a.org_id = r.org_id AND a.id = r.report_id
WHERE x.method = 'dkim' AND x.selector IS NOT NULL AND x.selector <> ''
GROUP BY a.org_id, a.domain_id, lower(x.domain), lower(x.selector);
