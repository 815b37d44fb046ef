CREATE TABLE "audit_log" (
	"id" text NOT NULL,
	"org_id" text NOT NULL,
	"at" bigint NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"actor_label" text NOT NULL,
	"action" text NOT NULL,
	"target" text,
	"address" text,
	"data" text,
	CONSTRAINT "audit_log_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
ALTER TABLE "organization_settings" ADD COLUMN "retention_aggregate_days" integer DEFAULT 400 NOT NULL;--> statement-breakpoint
ALTER TABLE "organization_settings" ADD COLUMN "retention_failure_days" integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_org_time_idx" ON "audit_log" USING btree ("org_id","at");--> statement-breakpoint
CREATE INDEX "audit_log_org_action_idx" ON "audit_log" USING btree ("org_id","action","at");--> statement-breakpoint
CREATE INDEX "audit_log_org_actor_idx" ON "audit_log" USING btree ("org_id","actor_id","at");