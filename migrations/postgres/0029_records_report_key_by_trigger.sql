-- Records lose their foreign key to their report. Records are written only by the report writer,
-- in the transaction that inserts their report (src/features/reports/store.postgres.ts), so a
-- record's report exists by construction; the key's check looked the report up and locked it for
-- every record inserted, a third of the records' insert and half of the database's work in an
-- upload. Its other duty, deleting a report's records with the report (a retention purge, a
-- domain or organization removed), is this statement trigger's: once per statement, over the
-- deleted reports, as the key's cascade did row by row: each report's records found by their
-- report's seq (`aggregate_records_report_idx`), the organization compared on the rows found
-- (IS NOT DISTINCT FROM, which no index serves: an equality there let the planner combine the
-- organization's whole primary-key range with each report's). Planned each time (EXECUTE), with
-- the number of reports deleted and the records table's statistics of the moment: a plan kept
-- from a connection's first deletion into a nearly empty table could read the whole table.
-- Instant: no table is rewritten.
ALTER TABLE "aggregate_records" DROP CONSTRAINT "aggregate_records_report_fk";
--> statement-breakpoint
CREATE FUNCTION aggregate_reports_delete_records() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM aggregate_records r USING gone g WHERE r.report_seq = g.seq AND r.org_id IS NOT DISTINCT FROM g.org_id';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER aggregate_reports_delete_records AFTER DELETE ON aggregate_reports REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION aggregate_reports_delete_records();
