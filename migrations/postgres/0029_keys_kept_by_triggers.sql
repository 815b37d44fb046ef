-- Two foreign keys whose check ran for every row an ingest writes go; what they did besides is
-- done by statement triggers, once per deleting statement over its deleted rows (REFERENCING OLD
-- TABLE), each planned as it runs (EXECUTE: a plan kept from a connection's first deletion into a
-- nearly empty table could read the whole table later). Instant: no table is rewritten.
--
-- Records and their report. Records are written only by the report writer, in the transaction
-- that inserts their report (src/features/reports/store.postgres.ts), so a record's report exists
-- by construction; the key's check looked the report up and locked it for every record inserted,
-- a third of the records' insert and half of the database's work in an upload. Deleting reports
-- (a retention purge, a domain or organization removed) deletes their records: found by their
-- report's seq (`aggregate_records_report_idx`), the organization compared on the rows found (IS
-- NOT DISTINCT FROM, which no index serves: an equality let the planner combine the
-- organization's whole primary-key range with each report's).
ALTER TABLE "aggregate_records" DROP CONSTRAINT "aggregate_records_report_fk";
--> statement-breakpoint
CREATE FUNCTION aggregate_reports_delete_records() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM aggregate_records r USING gone g WHERE r.report_seq = g.seq AND r.org_id IS NOT DISTINCT FROM g.org_id';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER aggregate_reports_delete_records AFTER DELETE ON aggregate_reports REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION aggregate_reports_delete_records();
--> statement-breakpoint
-- Daily sender roll-ups and their domain. A roll-up row is written in the transaction of a report
-- of its domain, whose own key to the domain (kept) holds the domain row until the commit, so the
-- row's domain exists by construction; the key's check cost about 5 µs of the 16 a bulk ingest's
-- row takes. Removing a domain (or its organization) deletes its rows, found by
-- `daily_sender_stats_org_domain_day_idx`.
ALTER TABLE "daily_sender_stats" DROP CONSTRAINT "daily_sender_stats_domain_fk";
--> statement-breakpoint
CREATE FUNCTION domains_delete_sender_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM daily_sender_stats s USING gone g WHERE s.org_id = g.org_id AND s.domain_id = g.id';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER domains_delete_sender_days AFTER DELETE ON domains REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION domains_delete_sender_days();
