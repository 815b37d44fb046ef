CREATE TABLE "client_report_settings" (
	"client_org_id" text PRIMARY KEY NOT NULL,
	"contacts" text DEFAULT '[]' NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"last_sent_at" bigint,
	"last_failures" text,
	"last_failed_at" bigint,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "client_report_settings" ADD CONSTRAINT "client_report_settings_client_org_id_organizations_id_fk" FOREIGN KEY ("client_org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;