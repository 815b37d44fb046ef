CREATE TABLE `daily_domain_stats` (
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`day` integer NOT NULL,
	`messages` integer DEFAULT 0 NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	`quarantined` integer DEFAULT 0 NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL,
	`spf_aligned` integer DEFAULT 0 NOT NULL,
	`dkim_aligned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `domain_id`, `day`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `daily_domain_stats_org_day_idx` ON `daily_domain_stats` (`org_id`,`day`);--> statement-breakpoint
CREATE TABLE `daily_source_stats` (
	`org_id` text NOT NULL,
	`domain_id` text NOT NULL,
	`day` integer NOT NULL,
	`source_ip` text NOT NULL,
	`country` text,
	`messages` integer DEFAULT 0 NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	`quarantined` integer DEFAULT 0 NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL,
	`spf_aligned` integer DEFAULT 0 NOT NULL,
	`dkim_aligned` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `domain_id`, `day`, `source_ip`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `daily_source_stats_org_day_idx` ON `daily_source_stats` (`org_id`,`day`);--> statement-breakpoint
CREATE INDEX `daily_source_stats_org_ip_idx` ON `daily_source_stats` (`org_id`,`source_ip`,`day`);--> statement-breakpoint
CREATE TABLE `sender_marks` (
	`org_id` text NOT NULL,
	`sender_key` text NOT NULL,
	`verdict` text NOT NULL,
	`marked_by` text,
	`marked_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `sender_key`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`marked_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `alert_channels` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`target` text NOT NULL,
	`secret_encrypted` text,
	`event_types` text,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_channels_org_idx` ON `alert_channels` (`org_id`);--> statement-breakpoint
CREATE TABLE `alert_conditions` (
	`org_id` text NOT NULL,
	`key` text NOT NULL,
	`since` integer NOT NULL,
	PRIMARY KEY(`org_id`, `key`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `alert_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`event_id` text NOT NULL,
	`channel_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_error` text,
	`delivered_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `org_events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`channel_id`) REFERENCES `alert_channels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_deliveries_event_channel_unique` ON `alert_deliveries` (`event_id`,`channel_id`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_due_idx` ON `alert_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_channel_idx` ON `alert_deliveries` (`channel_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `delivery_attempts` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`attempted_at` integer NOT NULL,
	`ok` integer NOT NULL,
	`status_code` integer,
	`error` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`delivery_id`) REFERENCES `alert_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `delivery_attempts_delivery_idx` ON `delivery_attempts` (`delivery_id`,`attempted_at`);--> statement-breakpoint
CREATE TABLE `dns_snapshots` (
	`domain_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`snapshot` text NOT NULL,
	`checked_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `event_reads` (
	`user_id` text NOT NULL,
	`event_id` text NOT NULL,
	`org_id` text NOT NULL,
	`read_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `event_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `org_events`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `event_reads_org_user_idx` ON `event_reads` (`org_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `org_events` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`type` text NOT NULL,
	`domain` text,
	`data` text NOT NULL,
	`dedupe_key` text,
	`occurred_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `org_events_org_time_idx` ON `org_events` (`org_id`,`occurred_at`);--> statement-breakpoint
ALTER TABLE `organization_settings` ADD `digest_enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `organization_settings` ADD `digest_day` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `organization_settings` ADD `digest_hour` integer DEFAULT 8 NOT NULL;--> statement-breakpoint
ALTER TABLE `organization_settings` ADD `alert_thresholds` text;--> statement-breakpoint
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
