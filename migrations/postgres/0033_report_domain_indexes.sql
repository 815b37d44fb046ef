-- A removed domain's failure and TLS reports, found by its key's cascade through an index that begins
-- with the domain instead of by reading the whole table once per domain removed (an MSP's TLS
-- reports: one a reporter, day and policy domain). src/db/foreign-key-lookups.test.ts lists the
-- cascading keys whose lookup is still a scan.
CREATE INDEX "failure_reports_domain_idx" ON "failure_reports" USING btree ("domain_id","arrival_date");--> statement-breakpoint
CREATE INDEX "tls_reports_domain_idx" ON "tls_reports" USING btree ("domain_id","date_begin");