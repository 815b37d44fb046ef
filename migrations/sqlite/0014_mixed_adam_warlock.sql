CREATE TABLE `organization_branding` (
	`org_id` text PRIMARY KEY NOT NULL,
	`product_name` text,
	`primary_color` text,
	`support_email` text,
	`logo_type` text,
	`logo_base64` text,
	`logo_updated_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
