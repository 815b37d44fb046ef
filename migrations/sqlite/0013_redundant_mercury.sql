CREATE TABLE `oauth_mailboxes` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`provider` text NOT NULL,
	`email` text NOT NULL,
	`folder` text DEFAULT 'INBOX' NOT NULL,
	`refresh_token_encrypted` text NOT NULL,
	`access_token_encrypted` text,
	`access_token_expires_at` integer,
	`status` text DEFAULT 'active' NOT NULL,
	`last_polled_at` integer,
	`last_error` text,
	`last_poll_messages` integer,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_mailboxes_address_unique` ON `oauth_mailboxes` (`org_id`,`provider`,`email`);--> statement-breakpoint
CREATE INDEX `oauth_mailboxes_org_idx` ON `oauth_mailboxes` (`org_id`);