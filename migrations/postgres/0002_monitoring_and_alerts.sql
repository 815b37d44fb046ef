CREATE TABLE "daily_domain_stats" (
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"day" integer NOT NULL,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	"quarantined" bigint DEFAULT 0 NOT NULL,
	"rejected" bigint DEFAULT 0 NOT NULL,
	"spf_aligned" bigint DEFAULT 0 NOT NULL,
	"dkim_aligned" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "daily_domain_stats_org_id_domain_id_day_pk" PRIMARY KEY("org_id","domain_id","day")
);
--> statement-breakpoint
CREATE TABLE "daily_source_stats" (
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"day" integer NOT NULL,
	"source_ip" text NOT NULL,
	"country" text,
	"messages" bigint DEFAULT 0 NOT NULL,
	"passed" bigint DEFAULT 0 NOT NULL,
	"quarantined" bigint DEFAULT 0 NOT NULL,
	"rejected" bigint DEFAULT 0 NOT NULL,
	"spf_aligned" bigint DEFAULT 0 NOT NULL,
	"dkim_aligned" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "daily_source_stats_org_id_domain_id_day_source_ip_pk" PRIMARY KEY("org_id","domain_id","day","source_ip")
);
--> statement-breakpoint
CREATE TABLE "sender_marks" (
	"org_id" text NOT NULL,
	"sender_key" text NOT NULL,
	"verdict" text NOT NULL,
	"marked_by" text,
	"marked_at" bigint NOT NULL,
	CONSTRAINT "sender_marks_org_id_sender_key_pk" PRIMARY KEY("org_id","sender_key")
);
--> statement-breakpoint
CREATE TABLE "alert_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"target" text NOT NULL,
	"secret_encrypted" text,
	"event_types" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint
);
--> statement-breakpoint
CREATE TABLE "alert_conditions" (
	"org_id" text NOT NULL,
	"key" text NOT NULL,
	"since" bigint NOT NULL,
	CONSTRAINT "alert_conditions_org_id_key_pk" PRIMARY KEY("org_id","key")
);
--> statement-breakpoint
CREATE TABLE "alert_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"event_id" text NOT NULL,
	"channel_id" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"last_error" text,
	"delivered_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_attempts" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	"attempted_at" bigint NOT NULL,
	"ok" boolean NOT NULL,
	"status_code" integer,
	"error" text
);
--> statement-breakpoint
CREATE TABLE "dns_snapshots" (
	"domain_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"snapshot" text NOT NULL,
	"checked_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_reads" (
	"user_id" text NOT NULL,
	"event_id" text NOT NULL,
	"org_id" text NOT NULL,
	"read_at" bigint NOT NULL,
	CONSTRAINT "event_reads_user_id_event_id_pk" PRIMARY KEY("user_id","event_id")
);
--> statement-breakpoint
CREATE TABLE "org_events" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"type" text NOT NULL,
	"domain" text,
	"data" text NOT NULL,
	"dedupe_key" text,
	"occurred_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organization_settings" ADD COLUMN "digest_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "organization_settings" ADD COLUMN "digest_day" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "organization_settings" ADD COLUMN "digest_hour" integer DEFAULT 8 NOT NULL;--> statement-breakpoint
ALTER TABLE "organization_settings" ADD COLUMN "alert_thresholds" text;--> statement-breakpoint
ALTER TABLE "daily_domain_stats" ADD CONSTRAINT "daily_domain_stats_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_domain_stats" ADD CONSTRAINT "daily_domain_stats_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_source_stats" ADD CONSTRAINT "daily_source_stats_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_source_stats" ADD CONSTRAINT "daily_source_stats_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sender_marks" ADD CONSTRAINT "sender_marks_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sender_marks" ADD CONSTRAINT "sender_marks_marked_by_users_id_fk" FOREIGN KEY ("marked_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_channels" ADD CONSTRAINT "alert_channels_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_conditions" ADD CONSTRAINT "alert_conditions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_event_id_org_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."org_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_channel_id_alert_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."alert_channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_attempts" ADD CONSTRAINT "delivery_attempts_delivery_id_alert_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."alert_deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dns_snapshots" ADD CONSTRAINT "dns_snapshots_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dns_snapshots" ADD CONSTRAINT "dns_snapshots_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_reads" ADD CONSTRAINT "event_reads_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_reads" ADD CONSTRAINT "event_reads_event_id_org_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."org_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_reads" ADD CONSTRAINT "event_reads_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_events" ADD CONSTRAINT "org_events_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "daily_domain_stats_org_day_idx" ON "daily_domain_stats" USING btree ("org_id","day");--> statement-breakpoint
CREATE INDEX "daily_source_stats_org_day_idx" ON "daily_source_stats" USING btree ("org_id","day");--> statement-breakpoint
CREATE INDEX "daily_source_stats_org_ip_idx" ON "daily_source_stats" USING btree ("org_id","source_ip","day");--> statement-breakpoint
CREATE INDEX "alert_channels_org_idx" ON "alert_channels" USING btree ("org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_deliveries_event_channel_unique" ON "alert_deliveries" USING btree ("event_id","channel_id");--> statement-breakpoint
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "alert_deliveries_channel_idx" ON "alert_deliveries" USING btree ("channel_id","created_at");--> statement-breakpoint
CREATE INDEX "delivery_attempts_delivery_idx" ON "delivery_attempts" USING btree ("delivery_id","attempted_at");--> statement-breakpoint
CREATE INDEX "event_reads_org_user_idx" ON "event_reads" USING btree ("org_id","user_id");--> statement-breakpoint
CREATE INDEX "org_events_org_time_idx" ON "org_events" USING btree ("org_id","occurred_at");--> statement-breakpoint
-- Roll up the reports stored before this migration (the rule: the UTC day on which a report's date range begins).
INSERT INTO daily_domain_stats (org_id, domain_id, day, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned)
SELECT r.org_id, a.domain_id, r.date_begin / 86400,
  SUM(r.message_count),
  SUM(CASE WHEN r.dmarc_pass THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.disposition = 'quarantine' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.disposition = 'reject' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.spf_aligned = 'pass' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.dkim_aligned = 'pass' THEN r.message_count ELSE 0 END)
FROM aggregate_records r JOIN aggregate_reports a ON a.id = r.report_id
GROUP BY r.org_id, a.domain_id, r.date_begin / 86400;
--> statement-breakpoint
INSERT INTO daily_source_stats (org_id, domain_id, day, source_ip, country, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned)
SELECT r.org_id, a.domain_id, r.date_begin / 86400, r.source_ip, MAX(r.country),
  SUM(r.message_count),
  SUM(CASE WHEN r.dmarc_pass THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.disposition = 'quarantine' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.disposition = 'reject' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.spf_aligned = 'pass' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.dkim_aligned = 'pass' THEN r.message_count ELSE 0 END)
FROM aggregate_records r JOIN aggregate_reports a ON a.id = r.report_id
GROUP BY r.org_id, a.domain_id, r.date_begin / 86400, r.source_ip;
