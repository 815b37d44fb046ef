-- Daily country roll-ups and their domain, as daily_sender_stats' in 0029: a roll-up row is
-- written in the transaction of a report of its domain, whose own key to the domain (kept) holds
-- the domain row until the commit, so the row's domain exists by construction; the key's check
-- was about a third of the rows' upsert in a bulk ingest (28,276 rows: 229-234 ms without it,
-- 357-363 ms with it). Removing a domain (or its organization) deletes its rows, found in the
-- organization's range of the primary key. Instant: no table is rewritten.
ALTER TABLE "daily_country_stats" DROP CONSTRAINT "daily_country_stats_domain_fk";
--> statement-breakpoint
CREATE FUNCTION domains_delete_country_days() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE 'DELETE FROM daily_country_stats c USING gone g WHERE c.org_id = g.org_id AND c.domain_id = g.id';
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER domains_delete_country_days AFTER DELETE ON domains REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION domains_delete_country_days();
