CREATE TABLE "memberships" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"parent_id" text,
	"plan" text DEFAULT 'growth' NOT NULL,
	"plan_status" text DEFAULT 'none' NOT NULL,
	"trial_ends_at" bigint,
	"report_token" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" text NOT NULL,
	"current_org_id" text,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint DEFAULT (extract(epoch from now())::bigint) NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"email_verified_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "admin_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"admin_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "admin_users" (
	"id" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_submissions" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"company" text NOT NULL,
	"phone" text,
	"request_type" text NOT NULL,
	"subject" text NOT NULL,
	"message" text NOT NULL,
	"domains" text,
	"is_read" boolean DEFAULT false NOT NULL,
	"submitted_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "domains" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text NOT NULL,
	"dmarc_policy" text,
	"spf_status" text,
	"dkim_status" text,
	"overall_status" text DEFAULT 'pending' NOT NULL,
	"last_checked_at" bigint,
	"last_report_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organization_settings" (
	"org_id" text PRIMARY KEY NOT NULL,
	"organization_name" text,
	"contact_email" text,
	"email_notifications" boolean DEFAULT true NOT NULL,
	"dmarc_rua" text,
	"dmarc_ruf" text,
	"auto_process_reports" boolean DEFAULT true NOT NULL,
	"dns_caching" boolean DEFAULT true NOT NULL,
	"cache_ttl_seconds" integer DEFAULT 3600 NOT NULL,
	"realtime_threat_monitoring" boolean DEFAULT true NOT NULL,
	"compliance_alerts" boolean DEFAULT true NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by" text,
	"expires_at" bigint NOT NULL,
	"accepted_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_accounts" (
	"org_id" text PRIMARY KEY NOT NULL,
	"stripe_customer_id" text NOT NULL,
	"stripe_subscription_id" text,
	"setup_intent_id" text,
	"state_event_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"processed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_mailboxes" (
	"org_id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"tls" boolean DEFAULT true NOT NULL,
	"username" text NOT NULL,
	"password_encrypted" text NOT NULL,
	"folder" text DEFAULT 'INBOX' NOT NULL,
	"last_polled_at" bigint,
	"last_error" text,
	"last_poll_messages" integer,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "aggregate_auth_results" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "aggregate_auth_results_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"record_id" bigint NOT NULL,
	"method" text NOT NULL,
	"domain" text NOT NULL,
	"selector" text,
	"scope" text,
	"result" text NOT NULL,
	"human_result" text
);
--> statement-breakpoint
CREATE TABLE "aggregate_records" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "aggregate_records_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"report_id" text NOT NULL,
	"org_id" text NOT NULL,
	"date_begin" bigint NOT NULL,
	"source_ip" text NOT NULL,
	"message_count" bigint NOT NULL,
	"disposition" text NOT NULL,
	"dkim_aligned" text,
	"spf_aligned" text,
	"dmarc_pass" boolean NOT NULL,
	"header_from" text,
	"envelope_from" text,
	"envelope_to" text,
	"reasons" text,
	"country" text,
	"city" text,
	"ptr" text,
	"base_domain" text,
	"service" text,
	"service_type" text
);
--> statement-breakpoint
CREATE TABLE "aggregate_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"policy_domain" text NOT NULL,
	"reporter_org" text NOT NULL,
	"reporter_email" text,
	"reporter_contact" text,
	"report_id" text NOT NULL,
	"generator" text,
	"version" text,
	"dmarcbis" boolean DEFAULT false NOT NULL,
	"date_begin" bigint NOT NULL,
	"date_end" bigint NOT NULL,
	"policy_adkim" text,
	"policy_aspf" text,
	"policy_p" text,
	"policy_sp" text,
	"policy_np" text,
	"policy_pct" integer,
	"policy_fo" text,
	"policy_testing" text,
	"policy_discovery_method" text,
	"reporter_errors" text,
	"record_count" integer NOT NULL,
	"message_count" bigint NOT NULL,
	"pass_count" bigint NOT NULL,
	"source" text NOT NULL,
	"file_name" text,
	"processed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "failure_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"domain" text NOT NULL,
	"reporter_org" text NOT NULL,
	"report_id" text NOT NULL,
	"feedback_type" text,
	"auth_failure" text,
	"source_ip" text,
	"country" text,
	"ptr" text,
	"arrival_date" bigint,
	"authentication_results" text,
	"identity_alignment" text,
	"delivery_result" text,
	"dkim_domain" text,
	"dkim_selector" text,
	"spf_dns" text,
	"original_mail_from" text,
	"original_rcpt_to" text,
	"original_from" text,
	"original_subject" text,
	"original_message_id" text,
	"original_headers" text,
	"plain_text" boolean DEFAULT false NOT NULL,
	"source" text NOT NULL,
	"file_name" text,
	"processed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tls_reports" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"policy_domain" text NOT NULL,
	"reporter_org" text NOT NULL,
	"report_id" text NOT NULL,
	"contact_info" text,
	"date_begin" bigint NOT NULL,
	"date_end" bigint NOT NULL,
	"successful_sessions" bigint NOT NULL,
	"failed_sessions" bigint NOT NULL,
	"policies" text NOT NULL,
	"source" text NOT NULL,
	"file_name" text,
	"processed_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "domain_record_history" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"domain_id" text NOT NULL,
	"checked_at" bigint NOT NULL,
	"dmarc_record" text,
	"spf_record" text,
	"dkim_record" text,
	"dmarc_policy" text NOT NULL,
	"spf_status" text NOT NULL,
	"dkim_status" text NOT NULL,
	"overall_status" text NOT NULL,
	"changed" text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_verification_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "password_tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" bigint NOT NULL,
	"used_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "auth_throttle" (
	"bucket" text NOT NULL,
	"key" text NOT NULL,
	"window_start" bigint NOT NULL,
	"count" integer NOT NULL,
	"next_at" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "auth_throttle_bucket_key_pk" PRIMARY KEY("bucket","key")
);
--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_parent_id_organizations_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."organizations"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_current_org_id_organizations_id_fk" FOREIGN KEY ("current_org_id") REFERENCES "public"."organizations"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_admin_id_admin_users_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."admin_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domains" ADD CONSTRAINT "domains_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_settings" ADD CONSTRAINT "organization_settings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_users_id_fk" FOREIGN KEY ("invited_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_accounts" ADD CONSTRAINT "billing_accounts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_mailboxes" ADD CONSTRAINT "report_mailboxes_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "aggregate_auth_results" ADD CONSTRAINT "aggregate_auth_results_record_id_aggregate_records_id_fk" FOREIGN KEY ("record_id") REFERENCES "public"."aggregate_records"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "aggregate_records" ADD CONSTRAINT "aggregate_records_report_id_aggregate_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."aggregate_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "aggregate_reports" ADD CONSTRAINT "aggregate_reports_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "aggregate_reports" ADD CONSTRAINT "aggregate_reports_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "failure_reports" ADD CONSTRAINT "failure_reports_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "failure_reports" ADD CONSTRAINT "failure_reports_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tls_reports" ADD CONSTRAINT "tls_reports_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tls_reports" ADD CONSTRAINT "tls_reports_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domain_record_history" ADD CONSTRAINT "domain_record_history_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domain_record_history" ADD CONSTRAINT "domain_record_history_domain_id_domains_id_fk" FOREIGN KEY ("domain_id") REFERENCES "public"."domains"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_verification_tokens" ADD CONSTRAINT "email_verification_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_tokens" ADD CONSTRAINT "password_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "memberships_org_user_unique" ON "memberships" USING btree ("org_id","user_id");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_slug_unique" ON "organizations" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_report_token_unique" ON "organizations" USING btree ("report_token");--> statement-breakpoint
CREATE INDEX "organizations_parent_idx" ON "organizations" USING btree ("parent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_token_hash_unique" ON "sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_unique" ON "users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "admin_sessions_token_hash_unique" ON "admin_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "admin_sessions_admin_idx" ON "admin_sessions" USING btree ("admin_id");--> statement-breakpoint
CREATE UNIQUE INDEX "admin_users_username_unique" ON "admin_users" USING btree ("username");--> statement-breakpoint
CREATE INDEX "contact_submissions_submitted_idx" ON "contact_submissions" USING btree ("submitted_at");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_org_name_unique" ON "domains" USING btree ("org_id","name");--> statement-breakpoint
CREATE INDEX "domains_name_idx" ON "domains" USING btree ("name");--> statement-breakpoint
CREATE UNIQUE INDEX "invitations_token_hash_unique" ON "invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "invitations_org_idx" ON "invitations" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "billing_accounts_customer_idx" ON "billing_accounts" USING btree ("stripe_customer_id");--> statement-breakpoint
CREATE INDEX "aggregate_auth_results_record_idx" ON "aggregate_auth_results" USING btree ("record_id");--> statement-breakpoint
CREATE INDEX "aggregate_records_report_idx" ON "aggregate_records" USING btree ("report_id");--> statement-breakpoint
CREATE INDEX "aggregate_records_org_ip_idx" ON "aggregate_records" USING btree ("org_id","source_ip");--> statement-breakpoint
CREATE INDEX "aggregate_records_org_date_idx" ON "aggregate_records" USING btree ("org_id","date_begin");--> statement-breakpoint
CREATE UNIQUE INDEX "aggregate_reports_identity_unique" ON "aggregate_reports" USING btree ("org_id","reporter_org","report_id","policy_domain");--> statement-breakpoint
CREATE INDEX "aggregate_reports_org_processed_idx" ON "aggregate_reports" USING btree ("org_id","processed_at");--> statement-breakpoint
CREATE INDEX "aggregate_reports_org_date_idx" ON "aggregate_reports" USING btree ("org_id","date_begin");--> statement-breakpoint
CREATE INDEX "aggregate_reports_domain_date_idx" ON "aggregate_reports" USING btree ("domain_id","date_begin");--> statement-breakpoint
CREATE UNIQUE INDEX "failure_reports_identity_unique" ON "failure_reports" USING btree ("org_id","reporter_org","report_id","domain");--> statement-breakpoint
CREATE INDEX "failure_reports_org_arrival_idx" ON "failure_reports" USING btree ("org_id","arrival_date");--> statement-breakpoint
CREATE INDEX "failure_reports_org_ip_idx" ON "failure_reports" USING btree ("org_id","source_ip");--> statement-breakpoint
CREATE UNIQUE INDEX "tls_reports_identity_unique" ON "tls_reports" USING btree ("org_id","reporter_org","report_id","policy_domain");--> statement-breakpoint
CREATE INDEX "tls_reports_org_date_idx" ON "tls_reports" USING btree ("org_id","date_begin");--> statement-breakpoint
CREATE INDEX "domain_record_history_domain_idx" ON "domain_record_history" USING btree ("domain_id","checked_at");--> statement-breakpoint
CREATE UNIQUE INDEX "email_verification_tokens_token_hash_unique" ON "email_verification_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "email_verification_tokens_user_idx" ON "email_verification_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "password_tokens_token_hash_unique" ON "password_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "password_tokens_user_idx" ON "password_tokens" USING btree ("user_id");