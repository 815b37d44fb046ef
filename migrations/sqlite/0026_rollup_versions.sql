-- One counter per organisation, raised in the same transaction as every change to what the
-- kept reads (Senders, the sender page, trends' top sources, a domain's sources) read: a server keeps an answer while the counter
-- holds. The row is made with the organisation and goes with it.
CREATE TABLE `rollup_versions` (
	`org_id` text PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);--> statement-breakpoint
INSERT INTO rollup_versions (org_id) SELECT id FROM organizations;--> statement-breakpoint
CREATE TRIGGER rollup_versions_org AFTER INSERT ON organizations BEGIN INSERT OR IGNORE INTO rollup_versions (org_id) VALUES (NEW.id); END;--> statement-breakpoint
CREATE TRIGGER daily_sender_stats_insert_version AFTER INSERT ON daily_sender_stats BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER daily_sender_stats_update_version AFTER UPDATE ON daily_sender_stats BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER daily_sender_stats_delete_version AFTER DELETE ON daily_sender_stats BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = OLD.org_id; END;--> statement-breakpoint
CREATE TRIGGER source_names_insert_version AFTER INSERT ON source_names BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER source_names_update_version AFTER UPDATE ON source_names BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER source_names_delete_version AFTER DELETE ON source_names BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = OLD.org_id; END;--> statement-breakpoint
CREATE TRIGGER sender_marks_insert_version AFTER INSERT ON sender_marks BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER sender_marks_update_version AFTER UPDATE ON sender_marks BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER sender_marks_delete_version AFTER DELETE ON sender_marks BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = OLD.org_id; END;--> statement-breakpoint
CREATE TRIGGER daily_auth_stats_insert_version AFTER INSERT ON daily_auth_stats BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER daily_auth_stats_update_version AFTER UPDATE ON daily_auth_stats BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = NEW.org_id; END;--> statement-breakpoint
CREATE TRIGGER daily_auth_stats_delete_version AFTER DELETE ON daily_auth_stats BEGIN UPDATE rollup_versions SET version = version + 1 WHERE org_id = OLD.org_id; END;
