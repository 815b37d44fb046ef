-- The four roll-ups keyed by domain drop their own key to organizations: their (org_id, domain_id)
-- key to domains implies it, and PostgreSQL checked both for every row an ingest upserts (about a
-- sixth of a roll-up upsert's time). Deleting an organization still deletes them, through its domains.
ALTER TABLE "daily_country_stats" DROP CONSTRAINT "daily_country_stats_org_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "daily_domain_stats" DROP CONSTRAINT "daily_domain_stats_org_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "daily_sender_stats" DROP CONSTRAINT "daily_sender_stats_org_id_organizations_id_fk";
--> statement-breakpoint
ALTER TABLE "dkim_selectors_seen" DROP CONSTRAINT "dkim_selectors_seen_org_id_organizations_id_fk";
