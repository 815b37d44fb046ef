-- An organization's roll-up version (0026) is raised by the writers of its sender roll-ups and
-- source names, once per organization a write touches (the report writer after a write's
-- daily_sender_stats upserts, the reverse DNS writer when a name changed), instead of by a trigger
-- run for every row: a bulk ingest writes one daily_sender_stats row per new address-day, and the
-- trigger's UPDATE of the version row was about a seventh of each row's upsert (100,000 rows:
-- 500-520 ms without it against 580-640 with it). Deleting rows still raises it by trigger (a
-- domain removed, names or marks cleared); sender_marks keeps its triggers (a user's change of one
-- row at a time).
DROP TRIGGER `daily_sender_stats_insert_version`;--> statement-breakpoint
DROP TRIGGER `daily_sender_stats_update_version`;--> statement-breakpoint
DROP TRIGGER `source_names_insert_version`;--> statement-breakpoint
DROP TRIGGER `source_names_update_version`;
