-- A sending IP's DKIM and SPF results of a day move into its daily_sender_stats row (see SQLite's
-- 0029): the `auth` column, a JSON object of each result's key to its messages. Where one
-- domain's address-day has several policy domains, its results go on the row of the first of them.
ALTER TABLE "daily_sender_stats" ADD COLUMN "auth" text;--> statement-breakpoint
UPDATE daily_sender_stats s SET auth = a.auth
  FROM (
    SELECT org_id, domain_id, source_ip, day, jsonb_object_agg(method || E'\n' || auth_domain || E'\n' || selector || E'\n' || result, messages)::text AS auth
    FROM daily_auth_stats GROUP BY org_id, domain_id, source_ip, day
  ) a
  WHERE s.org_id = a.org_id AND s.domain_id = a.domain_id AND s.source_ip = a.source_ip AND s.day = a.day
    AND s.policy_domain = (
      SELECT min(t.policy_domain) FROM daily_sender_stats t
      WHERE t.org_id = s.org_id AND t.day = s.day AND t.source_ip = s.source_ip AND t.domain_id = s.domain_id);--> statement-breakpoint
DROP TABLE "daily_auth_stats" CASCADE;
