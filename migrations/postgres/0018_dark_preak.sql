CREATE TABLE "daily_country_stats" (
	"org_id" text NOT NULL,
	"day" integer NOT NULL,
	"domain_id" text NOT NULL,
	"country" text NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "daily_country_stats_org_id_day_domain_id_country_pk" PRIMARY KEY("org_id","day","domain_id","country")
);
--> statement-breakpoint
ALTER TABLE "daily_country_stats" ADD CONSTRAINT "daily_country_stats_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_country_stats" ADD CONSTRAINT "daily_country_stats_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Roll up the source days stored before this migration per country ('' for the unlocated).
INSERT INTO daily_country_stats (org_id, day, domain_id, country, messages, passed)
SELECT org_id, day, domain_id, COALESCE(country, ''), SUM(messages), SUM(passed)
FROM daily_source_stats
GROUP BY org_id, day, domain_id, COALESCE(country, '');
