CREATE TABLE "daily_sender_stats" (
	"org_id" text NOT NULL,
	"day" integer NOT NULL,
	"source_ip" text NOT NULL,
	"policy_domain" text NOT NULL,
	"domain_id" text NOT NULL,
	"country" text,
	"city" text,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	"spf_aligned" bigint DEFAULT 0 NOT NULL,
	"dkim_aligned" bigint DEFAULT 0 NOT NULL,
	"failed_delivered" bigint DEFAULT 0 NOT NULL,
	"first_failed_at" bigint,
	"last_failed_at" bigint,
	"last_begin" bigint NOT NULL,
	CONSTRAINT "daily_sender_stats_org_id_day_source_ip_policy_domain_pk" PRIMARY KEY("org_id","day","source_ip","policy_domain")
);
--> statement-breakpoint
CREATE TABLE "source_names" (
	"org_id" text NOT NULL,
	"source_ip" text NOT NULL,
	"ptr" text NOT NULL,
	"base_domain" text,
	"service" text,
	"service_type" text,
	CONSTRAINT "source_names_org_id_source_ip_pk" PRIMARY KEY("org_id","source_ip")
);
--> statement-breakpoint
CREATE TABLE "sso_connections" (
	"org_id" text PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_encrypted" text NOT NULL,
	"allowed_domains" text NOT NULL,
	"new_user_role" text DEFAULT 'viewer' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"updated_by" text
);
--> statement-breakpoint
ALTER TABLE "daily_sender_stats" ADD CONSTRAINT "daily_sender_stats_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_sender_stats" ADD CONSTRAINT "daily_sender_stats_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "source_names" ADD CONSTRAINT "source_names_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
INSERT INTO "daily_sender_stats" (org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, spf_aligned, dkim_aligned, failed_delivered, first_failed_at, last_failed_at, last_begin)
SELECT a.org_id, a.date_begin / 86400, r.source_ip, a.policy_domain, MAX(a.domain_id), MAX(r.country), MAX(r.city),
  SUM(r.message_count),
  SUM(CASE WHEN r.dmarc_pass THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.spf_aligned = 'pass' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.dkim_aligned = 'pass' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN NOT r.dmarc_pass AND r.disposition = 'none' THEN r.message_count ELSE 0 END),
  MIN(CASE WHEN NOT r.dmarc_pass THEN a.date_begin END),
  MAX(CASE WHEN NOT r.dmarc_pass THEN LEAST(a.date_end, a.processed_at) END),
  MAX(a.date_begin)
FROM aggregate_records r JOIN aggregate_reports a ON a.org_id = r.org_id AND a.id = r.report_id
GROUP BY a.org_id, a.date_begin / 86400, r.source_ip, a.policy_domain;
--> statement-breakpoint
INSERT INTO "source_names" (org_id, source_ip, ptr, base_domain, service, service_type)
SELECT org_id, source_ip, MAX(ptr), MAX(base_domain), MAX(service), MAX(service_type)
FROM aggregate_records WHERE ptr IS NOT NULL GROUP BY org_id, source_ip;
