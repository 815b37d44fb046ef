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
CREATE INDEX `tls_reports_org_date_idx` ON `tls_reports` (`org_id`,`date_begin`);