CREATE TABLE `job_leases` (
	`key` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `job_leases_expires_idx` ON `job_leases` (`expires_at`);