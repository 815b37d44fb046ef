-- An organization's roll-up version (0024) is raised by the writers of its sender roll-ups and
-- source names, once per organization a write touches (the report writer after a write's
-- daily_sender_stats upserts, the reverse DNS writer when a name changed), as on SQLite (its
-- migration 0031), instead of by statement triggers that kept every row a statement wrote in a
-- transition table to find its organizations. Deleting rows still raises it by trigger; sender_marks
-- keeps its triggers.
DROP TRIGGER "daily_sender_stats_insert_version" ON "daily_sender_stats";--> statement-breakpoint
DROP TRIGGER "daily_sender_stats_update_version" ON "daily_sender_stats";--> statement-breakpoint
DROP TRIGGER "source_names_insert_version" ON "source_names";--> statement-breakpoint
DROP TRIGGER "source_names_update_version" ON "source_names";
