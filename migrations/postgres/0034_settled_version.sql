-- The settled version of an organization's roll-ups, `version - unsettled_raises`:
-- unsettled_raises counts the raises for changes that leave every sum of the settled days (up to
-- two UTC days ago) as it was, the report writer's when its sender rows were all of the last two
-- days and reverse DNS names'. The window reads (Senders, trends' top sources) keep their sums of
-- the settled days while it holds and read only the last two days afresh
-- (src/features/reports/read-cache.ts, windowSums). Every other raise (triggers, deletions, marks,
-- the retention purge, older days' reports) leaves the count as it is, so it changes the settled
-- version too.
ALTER TABLE "rollup_versions" ADD COLUMN "unsettled_raises" bigint DEFAULT 0 NOT NULL;
