CREATE TABLE `memberships` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memberships_org_user_unique` ON `memberships` (`org_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `memberships_user_idx` ON `memberships` (`user_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`parent_id` text,
	`plan` text DEFAULT 'growth' NOT NULL,
	`plan_status` text DEFAULT 'none' NOT NULL,
	`trial_ends_at` integer,
	`report_token` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`parent_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE restrict
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_slug_unique` ON `organizations` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_report_token_unique` ON `organizations` (`report_token`);--> statement-breakpoint
CREATE INDEX `organizations_parent_idx` ON `organizations` (`parent_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`user_id` text NOT NULL,
	`current_org_id` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer DEFAULT (unixepoch()) NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`current_org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_token_hash_unique` ON `sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `admin_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`token_hash` text NOT NULL,
	`admin_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`admin_id`) REFERENCES `admin_users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_sessions_token_hash_unique` ON `admin_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `admin_sessions_admin_idx` ON `admin_sessions` (`admin_id`);--> statement-breakpoint
CREATE TABLE `admin_users` (
	`id` text PRIMARY KEY NOT NULL,
	`username` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_users_username_unique` ON `admin_users` (`username`);--> statement-breakpoint
CREATE TABLE `contact_submissions` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`company` text NOT NULL,
	`phone` text,
	`request_type` text NOT NULL,
	`subject` text NOT NULL,
	`message` text NOT NULL,
	`domains` text,
	`is_read` integer DEFAULT false NOT NULL,
	`submitted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `contact_submissions_submitted_idx` ON `contact_submissions` (`submitted_at`);--> statement-breakpoint
CREATE TABLE `domains` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`dmarc_policy` text,
	`spf_status` text,
	`dkim_status` text,
	`overall_status` text DEFAULT 'pending' NOT NULL,
	`last_checked_at` integer,
	`last_report_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domains_org_name_unique` ON `domains` (`org_id`,`name`);--> statement-breakpoint
CREATE INDEX `domains_name_idx` ON `domains` (`name`);--> statement-breakpoint
CREATE TABLE `organization_settings` (
	`org_id` text PRIMARY KEY NOT NULL,
	`organization_name` text,
	`contact_email` text,
	`email_notifications` integer DEFAULT true NOT NULL,
	`dmarc_rua` text,
	`dmarc_ruf` text,
	`auto_process_reports` integer DEFAULT true NOT NULL,
	`dns_caching` integer DEFAULT true NOT NULL,
	`cache_ttl_seconds` integer DEFAULT 3600 NOT NULL,
	`realtime_threat_monitoring` integer DEFAULT true NOT NULL,
	`compliance_alerts` integer DEFAULT true NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`invited_by` text,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitations_token_hash_unique` ON `invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `invitations_org_idx` ON `invitations` (`org_id`);--> statement-breakpoint
CREATE TABLE `billing_accounts` (
	`org_id` text PRIMARY KEY NOT NULL,
	`stripe_customer_id` text NOT NULL,
	`stripe_subscription_id` text,
	`setup_intent_id` text,
	`state_event_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `billing_accounts_customer_idx` ON `billing_accounts` (`stripe_customer_id`);--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`processed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `report_mailboxes` (
	`org_id` text PRIMARY KEY NOT NULL,
	`host` text NOT NULL,
	`port` integer NOT NULL,
	`tls` integer DEFAULT true NOT NULL,
	`username` text NOT NULL,
	`password_encrypted` text NOT NULL,
	`folder` text DEFAULT 'INBOX' NOT NULL,
	`last_polled_at` integer,
	`last_error` text,
	`last_poll_messages` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `aggregate_auth_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`record_id` integer NOT NULL,
	`method` text NOT NULL,
	`domain` text NOT NULL,
	`selector` text,
	`scope` text,
	`result` text NOT NULL,
	`human_result` text,
	FOREIGN KEY (`record_id`) REFERENCES `aggregate_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `aggregate_auth_results_record_idx` ON `aggregate_auth_results` (`record_id`);--> statement-breakpoint
CREATE TABLE `aggregate_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`report_id` text NOT NULL,
	`org_id` text NOT NULL,
	`date_begin` integer NOT NULL,
	`source_ip` text NOT NULL,
	`message_count` integer NOT NULL,
	`disposition` text NOT NULL,
	`dkim_aligned` text,
	`spf_aligned` text,
	`dmarc_pass` integer NOT NULL,
	`header_from` text,
	`envelope_from` text,
	`envelope_to` text,
	`reasons` text,
	`country` text,
	`city` text,
	`ptr` text,
	`base_domain` text,
	`service` text,
	`service_type` text,
	FOREIGN KEY (`report_id`) REFERENCES `aggregate_reports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `aggregate_records_report_idx` ON `aggregate_records` (`report_id`);--> statement-breakpoint
CREATE INDEX `aggregate_records_org_ip_idx` ON `aggregate_records` (`org_id`,`source_ip`);--> statement-breakpoint
CREATE INDEX `aggregate_records_org_date_idx` ON `aggregate_records` (`org_id`,`date_begin`);--> statement-breakpoint
CREATE TABLE `aggregate_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`policy_domain` text NOT NULL,
	`reporter_org` text NOT NULL,
	`reporter_email` text,
	`reporter_contact` text,
	`report_id` text NOT NULL,
	`generator` text,
	`version` text,
	`dmarcbis` integer DEFAULT false NOT NULL,
	`date_begin` integer NOT NULL,
	`date_end` integer NOT NULL,
	`policy_adkim` text,
	`policy_aspf` text,
	`policy_p` text,
	`policy_sp` text,
	`policy_np` text,
	`policy_pct` integer,
	`policy_fo` text,
	`policy_testing` text,
	`policy_discovery_method` text,
	`reporter_errors` text,
	`record_count` integer NOT NULL,
	`message_count` integer NOT NULL,
	`pass_count` integer NOT NULL,
	`source` text NOT NULL,
	`file_name` text,
	`processed_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `aggregate_reports_identity_unique` ON `aggregate_reports` (`org_id`,`reporter_org`,`report_id`,`policy_domain`);--> statement-breakpoint
CREATE INDEX `aggregate_reports_org_processed_idx` ON `aggregate_reports` (`org_id`,`processed_at`);--> statement-breakpoint
CREATE INDEX `aggregate_reports_org_date_idx` ON `aggregate_reports` (`org_id`,`date_begin`);--> statement-breakpoint
CREATE INDEX `aggregate_reports_domain_date_idx` ON `aggregate_reports` (`domain_id`,`date_begin`);--> statement-breakpoint
CREATE TABLE `failure_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`domain` text NOT NULL,
	`reporter_org` text NOT NULL,
	`report_id` text NOT NULL,
	`feedback_type` text,
	`auth_failure` text,
	`source_ip` text,
	`country` text,
	`ptr` text,
	`arrival_date` integer,
	`authentication_results` text,
	`identity_alignment` text,
	`delivery_result` text,
	`dkim_domain` text,
	`dkim_selector` text,
	`spf_dns` text,
	`original_mail_from` text,
	`original_rcpt_to` text,
	`original_from` text,
	`original_subject` text,
	`original_message_id` text,
	`original_headers` text,
	`plain_text` integer DEFAULT false NOT NULL,
	`source` text NOT NULL,
	`file_name` text,
	`processed_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `failure_reports_identity_unique` ON `failure_reports` (`org_id`,`reporter_org`,`report_id`,`domain`);--> statement-breakpoint
CREATE INDEX `failure_reports_org_arrival_idx` ON `failure_reports` (`org_id`,`arrival_date`);--> statement-breakpoint
CREATE INDEX `failure_reports_org_ip_idx` ON `failure_reports` (`org_id`,`source_ip`);--> statement-breakpoint
CREATE TABLE `tls_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`policy_domain` text NOT NULL,
	`reporter_org` text NOT NULL,
	`report_id` text NOT NULL,
	`contact_info` text,
	`date_begin` integer NOT NULL,
	`date_end` integer NOT NULL,
	`successful_sessions` integer NOT NULL,
	`failed_sessions` integer NOT NULL,
	`policies` text NOT NULL,
	`source` text NOT NULL,
	`file_name` text,
	`processed_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tls_reports_identity_unique` ON `tls_reports` (`org_id`,`reporter_org`,`report_id`,`policy_domain`);--> statement-breakpoint
CREATE INDEX `tls_reports_org_date_idx` ON `tls_reports` (`org_id`,`date_begin`);--> statement-breakpoint
CREATE TABLE `domain_record_history` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`checked_at` integer NOT NULL,
	`dmarc_record` text,
	`spf_record` text,
	`dkim_record` text,
	`dmarc_policy` text NOT NULL,
	`spf_status` text NOT NULL,
	`dkim_status` text NOT NULL,
	`overall_status` text NOT NULL,
	`changed` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `domain_record_history_domain_idx` ON `domain_record_history` (`domain_id`,`checked_at`);--> statement-breakpoint
CREATE TABLE `password_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `password_tokens_token_hash_unique` ON `password_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `password_tokens_user_idx` ON `password_tokens` (`user_id`);