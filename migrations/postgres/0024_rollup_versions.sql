-- One counter per organisation, raised in the same transaction as every change to what the
-- kept reads (Senders, the sender page, trends' top sources, a domain's sources) read: a server keeps an answer while the counter
-- holds. The row is made with the organisation and goes with it.
CREATE TABLE "rollup_versions" (
	"org_id" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "rollup_versions" ADD CONSTRAINT "rollup_versions_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO rollup_versions (org_id) SELECT id FROM organizations;--> statement-breakpoint
CREATE FUNCTION rollup_versions_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO rollup_versions (org_id) VALUES (NEW.id) ON CONFLICT (org_id) DO NOTHING;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER rollup_versions_org AFTER INSERT ON organizations FOR EACH ROW EXECUTE FUNCTION rollup_versions_org();--> statement-breakpoint
-- once per statement, with the statement's rows (a report's roll-ups go in by one statement)
CREATE FUNCTION rollup_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE rollup_versions SET version = version + 1 WHERE org_id IN (SELECT DISTINCT org_id FROM changed);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER daily_sender_stats_insert_version AFTER INSERT ON daily_sender_stats REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER daily_sender_stats_update_version AFTER UPDATE ON daily_sender_stats REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER daily_sender_stats_delete_version AFTER DELETE ON daily_sender_stats REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER source_names_insert_version AFTER INSERT ON source_names REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER source_names_update_version AFTER UPDATE ON source_names REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER source_names_delete_version AFTER DELETE ON source_names REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER sender_marks_insert_version AFTER INSERT ON sender_marks REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER sender_marks_update_version AFTER UPDATE ON sender_marks REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER sender_marks_delete_version AFTER DELETE ON sender_marks REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER daily_auth_stats_insert_version AFTER INSERT ON daily_auth_stats REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER daily_auth_stats_update_version AFTER UPDATE ON daily_auth_stats REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();--> statement-breakpoint
CREATE TRIGGER daily_auth_stats_delete_version AFTER DELETE ON daily_auth_stats REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION rollup_versions_bump();
