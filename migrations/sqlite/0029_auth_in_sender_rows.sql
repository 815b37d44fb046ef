-- A sending IP's DKIM and SPF results of a day move into its daily_sender_stats row: the `auth`
-- column, a JSON object of each result's key (method `d` or `s`, result domain or `=` for the
-- row's policy domain, selector or '', result, joined by a line feed) to its messages. daily_auth_stats held them as two or more rows a source
-- a day, each with four B-tree entries to write at ingest. Where one domain's address-day has
-- several policy domains (a subdomain's reports), its results go on the row of the first of them:
-- the domain page sums an address's rows, so every sum per domain, address and day stays.
ALTER TABLE `daily_sender_stats` ADD `auth` text;--> statement-breakpoint
UPDATE daily_sender_stats SET auth = (
    SELECT CASE WHEN count(*) > 0 THEN json_group_object(
        CASE a.method WHEN 'dkim' THEN 'd' ELSE 's' END || char(10) || CASE WHEN a.auth_domain = lower(daily_sender_stats.policy_domain) THEN '=' ELSE a.auth_domain END
          || char(10) || a.selector || char(10) || a.result,
        a.messages) END
    FROM daily_auth_stats a
    WHERE a.org_id = daily_sender_stats.org_id AND a.domain_id = daily_sender_stats.domain_id AND a.source_ip = daily_sender_stats.source_ip AND a.day = daily_sender_stats.day)
  WHERE policy_domain = (
    SELECT min(s.policy_domain) FROM daily_sender_stats s
    WHERE s.org_id = daily_sender_stats.org_id AND s.day = daily_sender_stats.day AND s.source_ip = daily_sender_stats.source_ip AND s.domain_id = daily_sender_stats.domain_id);--> statement-breakpoint
DROP TABLE `daily_auth_stats`;
