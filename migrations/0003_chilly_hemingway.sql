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
