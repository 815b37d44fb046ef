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
