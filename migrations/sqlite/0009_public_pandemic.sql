CREATE TABLE `daily_sender_stats` (
	`org_id` text NOT NULL,
	`day` integer NOT NULL,
	`source_ip` text NOT NULL,
	`policy_domain` text NOT NULL,
	`domain_id` text NOT NULL,
	`country` text,
	`city` text,
	`messages` integer DEFAULT 0 NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	`spf_aligned` integer DEFAULT 0 NOT NULL,
	`dkim_aligned` integer DEFAULT 0 NOT NULL,
	`failed_delivered` integer DEFAULT 0 NOT NULL,
	`first_failed_at` integer,
	`last_failed_at` integer,
	`last_begin` integer NOT NULL,
	PRIMARY KEY(`org_id`, `day`, `source_ip`, `policy_domain`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`domain_id`) REFERENCES `domains`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `source_names` (
	`org_id` text NOT NULL,
	`source_ip` text NOT NULL,
	`ptr` text NOT NULL,
	`base_domain` text,
	`service` text,
	`service_type` text,
	PRIMARY KEY(`org_id`, `source_ip`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sso_connections` (
	`org_id` text PRIMARY KEY NOT NULL,
	`issuer` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_encrypted` text NOT NULL,
	`allowed_domains` text NOT NULL,
	`new_user_role` text DEFAULT 'viewer' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO daily_sender_stats (org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, spf_aligned, dkim_aligned, failed_delivered, first_failed_at, last_failed_at, last_begin)
SELECT a.org_id, a.date_begin / 86400, r.source_ip, a.policy_domain, MAX(a.domain_id), MAX(r.country), MAX(r.city),
  SUM(r.message_count),
  SUM(CASE WHEN r.dmarc_pass THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.spf_aligned = 'pass' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN r.dkim_aligned = 'pass' THEN r.message_count ELSE 0 END),
  SUM(CASE WHEN NOT r.dmarc_pass AND r.disposition = 'none' THEN r.message_count ELSE 0 END),
  MIN(CASE WHEN NOT r.dmarc_pass THEN a.date_begin END),
  MAX(CASE WHEN NOT r.dmarc_pass THEN MIN(a.date_end, a.processed_at) END),
  MAX(a.date_begin)
FROM aggregate_records r JOIN aggregate_reports a ON a.id = r.report_id
GROUP BY a.org_id, a.date_begin / 86400, r.source_ip, a.policy_domain;
--> statement-breakpoint
INSERT INTO source_names (org_id, source_ip, ptr, base_domain, service, service_type)
SELECT org_id, source_ip, MAX(ptr), MAX(base_domain), MAX(service), MAX(service_type)
FROM aggregate_records WHERE ptr IS NOT NULL GROUP BY org_id, source_ip;
