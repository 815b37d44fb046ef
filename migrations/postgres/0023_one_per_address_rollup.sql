-- One per-address roll-up: daily_source_stats (organization, domain, day, address) folds into
-- daily_sender_stats (organization, day, address, reported policy domain, each row with the
-- domain it counts for), which gains the quarantined and rejected messages. They are filled
-- here from daily_source_stats before it is dropped, so every sum per domain, day and address
-- stays what it was.
ALTER TABLE "daily_sender_stats" ADD COLUMN "quarantined" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "daily_sender_stats" ADD COLUMN "rejected" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "daily_sender_stats_org_domain_day_idx" ON "daily_sender_stats" USING btree ("org_id","domain_id","day");--> statement-breakpoint
-- An address-day of a domain with one sender row (one policy domain): the source row's figures.
UPDATE daily_sender_stats AS d SET quarantined = s.quarantined, rejected = s.rejected
FROM daily_source_stats s
WHERE s.org_id = d.org_id AND s.domain_id = d.domain_id AND s.day = d.day AND s.source_ip = d.source_ip
  AND (s.quarantined <> 0 OR s.rejected <> 0)
  AND NOT EXISTS (SELECT 1 FROM daily_sender_stats o WHERE o.org_id = d.org_id AND o.day = d.day AND o.source_ip = d.source_ip AND o.policy_domain <> d.policy_domain AND o.domain_id = d.domain_id);--> statement-breakpoint
-- Address-days of a domain with several policy domains (reports about a subdomain, or the name
-- written otherwise, counted for the domain row): each row from its records still stored ...
CREATE TEMP TABLE rollup_merge_shared AS
SELECT org_id, day, source_ip, domain_id, MIN(policy_domain) AS first_policy_domain
FROM daily_sender_stats GROUP BY org_id, day, source_ip, domain_id HAVING count(*) > 1;--> statement-breakpoint
UPDATE daily_sender_stats AS d SET quarantined = r.quarantined, rejected = r.rejected
FROM (
  SELECT a.org_id, a.date_begin / 86400 AS day, x.source_ip, a.domain_id, a.policy_domain,
    SUM(CASE WHEN x.disposition = 'quarantine' THEN x.message_count ELSE 0 END) AS quarantined,
    SUM(CASE WHEN x.disposition = 'reject' THEN x.message_count ELSE 0 END) AS rejected
  FROM (SELECT DISTINCT org_id, day FROM rollup_merge_shared) g
  JOIN aggregate_records x ON x.org_id = g.org_id AND x.date_begin >= g.day::bigint * 86400 AND x.date_begin < (g.day + 1)::bigint * 86400
  JOIN aggregate_reports a ON a.id = x.report_id
  JOIN rollup_merge_shared m ON m.org_id = a.org_id AND m.day = g.day AND m.source_ip = x.source_ip AND m.domain_id = a.domain_id
  GROUP BY a.org_id, a.date_begin / 86400, x.source_ip, a.domain_id, a.policy_domain
) r
WHERE d.org_id = r.org_id AND d.day = r.day AND d.source_ip = r.source_ip AND d.policy_domain = r.policy_domain AND d.domain_id = r.domain_id;--> statement-breakpoint
-- ... and what the records no longer show (purged by retention) on the first policy domain's row.
UPDATE daily_sender_stats AS d SET quarantined = d.quarantined + g.quarantined, rejected = d.rejected + g.rejected
FROM (
  SELECT m.org_id, m.day, m.source_ip, m.first_policy_domain, s.quarantined - SUM(x.quarantined) AS quarantined, s.rejected - SUM(x.rejected) AS rejected
  FROM rollup_merge_shared m
  JOIN daily_sender_stats x ON x.org_id = m.org_id AND x.day = m.day AND x.source_ip = m.source_ip AND x.domain_id = m.domain_id
  JOIN daily_source_stats s ON s.org_id = m.org_id AND s.domain_id = m.domain_id AND s.day = m.day AND s.source_ip = m.source_ip
  GROUP BY m.org_id, m.day, m.source_ip, m.domain_id, m.first_policy_domain, s.quarantined, s.rejected
) g
WHERE d.org_id = g.org_id AND d.day = g.day AND d.source_ip = g.source_ip AND d.policy_domain = g.first_policy_domain AND (g.quarantined <> 0 OR g.rejected <> 0);--> statement-breakpoint
DROP TABLE rollup_merge_shared;--> statement-breakpoint
-- Source rows without any sender row (days whose records were purged before migration 0009
-- rolled the senders up from them) become sender rows of the domain's own name: their failing
-- mail is dated at the day's start, and how much of it was delivered is not known (0).
INSERT INTO daily_sender_stats (org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned,
  failed_delivered, first_failed_at, last_failed_at, last_begin)
SELECT s.org_id, s.day, s.source_ip, dm.name, s.domain_id, s.country, NULL, s.messages, s.passed, s.quarantined, s.rejected, s.spf_aligned, s.dkim_aligned,
  0, CASE WHEN s.messages > s.passed THEN s.day::bigint * 86400 END, CASE WHEN s.messages > s.passed THEN s.day::bigint * 86400 END, s.day::bigint * 86400
FROM daily_source_stats s JOIN domains dm ON dm.id = s.domain_id
WHERE NOT EXISTS (SELECT 1 FROM daily_sender_stats d WHERE d.org_id = s.org_id AND d.day = s.day AND d.source_ip = s.source_ip AND d.domain_id = s.domain_id)
ON CONFLICT DO NOTHING;--> statement-breakpoint
DROP TABLE "daily_source_stats" CASCADE;
