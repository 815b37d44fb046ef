-- Tenant tables keyed by organisation (see src/db/schema-pg/index.ts). Hand-ordered: the
-- organisation of stored auth results comes from their record before the column is required,
-- and the foreign keys that depend on a primary key are dropped before it and added after.
ALTER TABLE "aggregate_auth_results" ADD COLUMN "org_id" text;
--> statement-breakpoint
UPDATE "aggregate_auth_results" SET "org_id" = r."org_id" FROM "aggregate_records" r WHERE r."id" = "aggregate_auth_results"."record_id";
--> statement-breakpoint
ALTER TABLE "aggregate_auth_results" ALTER COLUMN "org_id" SET NOT NULL;
--> statement-breakpoint
ALTER TABLE "aggregate_auth_results" DROP CONSTRAINT "aggregate_auth_results_record_id_aggregate_records_id_fk";
--> statement-breakpoint
ALTER TABLE "aggregate_records" DROP CONSTRAINT "aggregate_records_report_id_aggregate_reports_id_fk";
--> statement-breakpoint
ALTER TABLE "aggregate_reports" DROP CONSTRAINT "aggregate_reports_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "failure_reports" DROP CONSTRAINT "failure_reports_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "tls_reports" DROP CONSTRAINT "tls_reports_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "domain_record_history" DROP CONSTRAINT "domain_record_history_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "daily_domain_stats" DROP CONSTRAINT "daily_domain_stats_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "daily_source_stats" DROP CONSTRAINT "daily_source_stats_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "alert_deliveries" DROP CONSTRAINT "alert_deliveries_event_id_org_events_id_fk";
--> statement-breakpoint
ALTER TABLE "alert_deliveries" DROP CONSTRAINT "alert_deliveries_channel_id_alert_channels_id_fk";
--> statement-breakpoint
ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_delivery_id_alert_deliveries_id_fk";
--> statement-breakpoint
ALTER TABLE "dns_snapshots" DROP CONSTRAINT "dns_snapshots_domain_id_domains_id_fk";
--> statement-breakpoint
ALTER TABLE "event_reads" DROP CONSTRAINT "event_reads_event_id_org_events_id_fk";
--> statement-breakpoint
ALTER TABLE "memberships" DROP CONSTRAINT "memberships_pkey";
--> statement-breakpoint
ALTER TABLE "domains" DROP CONSTRAINT "domains_pkey";
--> statement-breakpoint
ALTER TABLE "invitations" DROP CONSTRAINT "invitations_pkey";
--> statement-breakpoint
ALTER TABLE "aggregate_auth_results" DROP CONSTRAINT "aggregate_auth_results_pkey";
--> statement-breakpoint
ALTER TABLE "aggregate_records" DROP CONSTRAINT "aggregate_records_pkey";
--> statement-breakpoint
ALTER TABLE "aggregate_reports" DROP CONSTRAINT "aggregate_reports_pkey";
--> statement-breakpoint
ALTER TABLE "failure_reports" DROP CONSTRAINT "failure_reports_pkey";
--> statement-breakpoint
ALTER TABLE "tls_reports" DROP CONSTRAINT "tls_reports_pkey";
--> statement-breakpoint
ALTER TABLE "domain_record_history" DROP CONSTRAINT "domain_record_history_pkey";
--> statement-breakpoint
ALTER TABLE "alert_channels" DROP CONSTRAINT "alert_channels_pkey";
--> statement-breakpoint
ALTER TABLE "alert_deliveries" DROP CONSTRAINT "alert_deliveries_pkey";
--> statement-breakpoint
ALTER TABLE "delivery_attempts" DROP CONSTRAINT "delivery_attempts_pkey";
--> statement-breakpoint
ALTER TABLE "dns_snapshots" DROP CONSTRAINT "dns_snapshots_pkey";
--> statement-breakpoint
ALTER TABLE "event_reads" DROP CONSTRAINT "event_reads_user_id_event_id_pk";
--> statement-breakpoint
ALTER TABLE "org_events" DROP CONSTRAINT "org_events_pkey";
--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "aggregate_auth_results" ADD CONSTRAINT "aggregate_auth_results_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "aggregate_records" ADD CONSTRAINT "aggregate_records_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "aggregate_reports" ADD CONSTRAINT "aggregate_reports_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "failure_reports" ADD CONSTRAINT "failure_reports_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "tls_reports" ADD CONSTRAINT "tls_reports_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "domain_record_history" ADD CONSTRAINT "domain_record_history_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "alert_channels" ADD CONSTRAINT "alert_channels_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
ALTER TABLE "dns_snapshots" ADD CONSTRAINT "dns_snapshots_org_id_domain_id_pk" PRIMARY KEY("org_id","domain_id");
--> statement-breakpoint
ALTER TABLE "event_reads" ADD CONSTRAINT "event_reads_org_id_user_id_event_id_pk" PRIMARY KEY("org_id","user_id","event_id");
--> statement-breakpoint
ALTER TABLE "org_events" ADD CONSTRAINT "org_events_org_id_id_pk" PRIMARY KEY("org_id","id");
--> statement-breakpoint
DROP INDEX "invitations_token_hash_unique";
--> statement-breakpoint
DROP INDEX "alert_deliveries_event_channel_unique";
--> statement-breakpoint
CREATE INDEX "invitations_token_hash_idx" ON "invitations" USING btree ("token_hash");
--> statement-breakpoint
CREATE INDEX "alert_deliveries_event_channel_idx" ON "alert_deliveries" USING btree ("event_id","channel_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_unique" ON "invitations" USING btree ("org_id","token_hash");
--> statement-breakpoint
CREATE UNIQUE INDEX "alert_deliveries_event_channel_unique" ON "alert_deliveries" USING btree ("org_id","event_id","channel_id");
--> statement-breakpoint
ALTER TABLE "aggregate_auth_results" ADD CONSTRAINT "aggregate_auth_results_record_fk" FOREIGN KEY ("org_id","record_id") REFERENCES "public"."aggregate_records"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "aggregate_records" ADD CONSTRAINT "aggregate_records_report_fk" FOREIGN KEY ("org_id","report_id") REFERENCES "public"."aggregate_reports"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "aggregate_reports" ADD CONSTRAINT "aggregate_reports_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "failure_reports" ADD CONSTRAINT "failure_reports_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "tls_reports" ADD CONSTRAINT "tls_reports_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "domain_record_history" ADD CONSTRAINT "domain_record_history_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "daily_domain_stats" ADD CONSTRAINT "daily_domain_stats_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "daily_source_stats" ADD CONSTRAINT "daily_source_stats_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_event_fk" FOREIGN KEY ("org_id","event_id") REFERENCES "public"."org_events"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_channel_fk" FOREIGN KEY ("org_id","channel_id") REFERENCES "public"."alert_channels"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_fk" FOREIGN KEY ("org_id","delivery_id") REFERENCES "public"."alert_deliveries"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "dns_snapshots" ADD CONSTRAINT "dns_snapshots_domain_fk" FOREIGN KEY ("org_id","domain_id") REFERENCES "public"."domains"("org_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "event_reads" ADD CONSTRAINT "event_reads_event_fk" FOREIGN KEY ("org_id","event_id") REFERENCES "public"."org_events"("org_id","id") ON DELETE cascade ON UPDATE no action;
