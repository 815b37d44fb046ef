CREATE TABLE "oauth_mailboxes" (
	"id" text NOT NULL,
	"org_id" text NOT NULL,
	"provider" text NOT NULL,
	"email" text NOT NULL,
	"folder" text DEFAULT 'INBOX' NOT NULL,
	"refresh_token_encrypted" text NOT NULL,
	"access_token_encrypted" text,
	"access_token_expires_at" bigint,
	"status" text DEFAULT 'active' NOT NULL,
	"last_polled_at" bigint,
	"last_error" text,
	"last_poll_messages" integer,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "oauth_mailboxes_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
ALTER TABLE "oauth_mailboxes" ADD CONSTRAINT "oauth_mailboxes_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_mailboxes_address_unique" ON "oauth_mailboxes" USING btree ("org_id","provider","email");--> statement-breakpoint
CREATE INDEX "oauth_mailboxes_org_idx" ON "oauth_mailboxes" USING btree ("org_id");