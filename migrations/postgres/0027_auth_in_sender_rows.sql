-- A sending IP's DKIM and SPF results of a day move into its daily_sender_stats row (see SQLite's
-- 0029): the `auth` column, a JSON object of each result's key (method `d` or `s`, result domain
-- or `=` for the row's policy domain, selector or '', result) to its messages. Where one
-- domain's address-day has several policy domains, its results go on the row of the first of them.
ALTER TABLE "daily_sender_stats" ADD COLUMN "auth" text;--> statement-breakpoint
UPDATE daily_sender_stats s SET auth = a.auth
  FROM (
    SELECT x.org_id, x.domain_id, x.source_ip, x.day, f.policy_domain,
      jsonb_object_agg(
        CASE x.method WHEN 'dkim' THEN 'd' ELSE 's' END || E'\n' || CASE WHEN x.auth_domain = lower(f.policy_domain) THEN '=' ELSE x.auth_domain END
          || E'\n' || x.selector || E'\n' || x.result,
        x.messages)::text AS auth
    FROM daily_auth_stats x
    JOIN (
      SELECT org_id, domain_id, source_ip, day, min(policy_domain) AS policy_domain FROM daily_sender_stats
      GROUP BY org_id, domain_id, source_ip, day
    ) f ON f.org_id = x.org_id AND f.domain_id = x.domain_id AND f.source_ip = x.source_ip AND f.day = x.day
    GROUP BY x.org_id, x.domain_id, x.source_ip, x.day, f.policy_domain
  ) a
  WHERE s.org_id = a.org_id AND s.day = a.day AND s.source_ip = a.source_ip AND s.policy_domain = a.policy_domain AND s.domain_id = a.domain_id;--> statement-breakpoint
DROP TABLE "daily_auth_stats" CASCADE;
