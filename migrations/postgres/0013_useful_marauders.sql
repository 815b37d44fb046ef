CREATE TABLE "organization_branding" (
	"org_id" text PRIMARY KEY NOT NULL,
	"product_name" text,
	"primary_color" text,
	"support_email" text,
	"logo_type" text,
	"logo_base64" text,
	"logo_updated_at" bigint,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organization_branding" ADD CONSTRAINT "organization_branding_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;