import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";
import { id, timestamp } from "./columns";
import { domains } from "./domains";

/**
 * Ingested reports. A report belongs to the organisation that owns its domain (`domainId`);
 * the same report (reporter, report id, policy domain) is stored once per organisation.
 * Records have integer keys: they are never addressed on their own and a large report has tens
 * of thousands of them, so compact rows and fast inserts matter. A record names its report by the
 * report's integer `seq` (the report's id, a UUID, is what leaves the server), carries its DKIM
 * and SPF results, and writes its header From and envelope From as "" when they repeat its
 * report's policy domain and its header From (record-auth.ts); the reverse DNS name of its
 * address is the organization's `source_names` row.
 */
/** when the report was ingested (UTC epoch seconds) */
const processedAt = () => integer("processed_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date());

export const aggregateReports = sqliteTable(
  "aggregate_reports",
  {
    id: id(),
    /**
     * The report's integer key, which its records carry instead of the 36-character id: unique,
     * given by the writer (one more than the largest) as it inserts the report.
     */
    seq: integer("seq").notNull(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
    policyDomain: text("policy_domain").notNull(),
    reporterOrg: text("reporter_org").notNull(),
    reporterEmail: text("reporter_email"),
    reporterContact: text("reporter_contact"),
    reportId: text("report_id").notNull(),
    generator: text("generator"),
    /** DMARCbis <version>, null for RFC 7489 reports */
    version: text("version"),
    dmarcbis: integer("dmarcbis", { mode: "boolean" }).notNull().default(false),
    dateBegin: timestamp("date_begin").notNull(),
    dateEnd: timestamp("date_end").notNull(),
    policyAdkim: text("policy_adkim"),
    policyAspf: text("policy_aspf"),
    policyP: text("policy_p"),
    policySp: text("policy_sp"),
    policyNp: text("policy_np"),
    policyPct: integer("policy_pct"),
    policyFo: text("policy_fo"),
    policyTesting: text("policy_testing"),
    policyDiscoveryMethod: text("policy_discovery_method"),
    /** JSON array of the reporter's <error> texts */
    reporterErrors: text("reporter_errors"),
    recordCount: integer("record_count").notNull(),
    messageCount: integer("message_count").notNull(),
    /** messages with DMARC pass (aligned DKIM or aligned SPF) */
    passCount: integer("pass_count").notNull(),
    /** upload | cli | smtp | imap | demo */
    source: text("source").notNull(),
    fileName: text("file_name"),
    processedAt: processedAt(),
  },
  (t) => [
    uniqueIndex("aggregate_reports_identity_unique").on(t.orgId, t.reporterOrg, t.reportId, t.policyDomain),
    uniqueIndex("aggregate_reports_seq_unique").on(t.seq),
    // the report list's order (newest processed first) and its cursor, and counts by processed time;
    // with each report's domain, the dashboard's "last report per domain as of 30 days ago" reads it alone
    index("aggregate_reports_org_list_idx").on(t.orgId, t.processedAt, t.dateEnd, t.id, t.domainId),
    index("aggregate_reports_org_date_idx").on(t.orgId, t.dateBegin),
    index("aggregate_reports_domain_date_idx").on(t.domainId, t.dateBegin),
  ],
);

export const aggregateRecords = sqliteTable(
  "aggregate_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** its report's `seq` */
    reportSeq: integer("report_seq").notNull().references(() => aggregateReports.seq, { onDelete: "cascade" }),
    /** the report's organization: every tenant table carries it */
    orgId: text("org_id").notNull(),
    sourceIp: text("source_ip").notNull(),
    messageCount: integer("message_count").notNull(),
    disposition: text("disposition").notNull(),
    dkimAligned: text("dkim_aligned"),
    spfAligned: text("spf_aligned"),
    dmarcPass: integer("dmarc_pass", { mode: "boolean" }).notNull(),
    /** "" when it is the report's policy domain (record-auth.ts: `recordFroms`) */
    headerFrom: text("header_from"),
    /** "" when it is the record's header From */
    envelopeFrom: text("envelope_from"),
    envelopeTo: text("envelope_to"),
    /** JSON array of {type, comment} policy override reasons */
    reasons: text("reasons"),
    /** ISO 3166-1 alpha-2, from the embedded IP database */
    country: text("country"),
    city: text("city"),
    /**
     * The record's DKIM results as compact JSON (`record-auth.ts`): an array of [domain,
     * selector, result] with the human result as a fourth element when given; null without any.
     * Kept in the record's row: they are only ever read with it (a report's detail, the sender
     * page's samples, the export), never on their own.
     */
    dkimResults: text("dkim_results"),
    /** The record's SPF results, the same way: [domain, scope, result(, human result)]. */
    spfResults: text("spf_results"),
  },
  // by report only (the detail, the purge; an organization's records of a period are its reports'
  // of the period, by their (org_id, date_begin) index, then theirs: the export and the sender
  // page's samples); dashboards and sender lists read the daily roll-ups, never these rows
  (t) => [index("aggregate_records_report_idx").on(t.reportSeq)],
);

export const failureReports = sqliteTable(
  "failure_reports",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    reporterOrg: text("reporter_org").notNull(),
    reportId: text("report_id").notNull(),
    feedbackType: text("feedback_type"),
    authFailure: text("auth_failure"),
    sourceIp: text("source_ip"),
    country: text("country"),
    ptr: text("ptr"),
    arrivalDate: timestamp("arrival_date"),
    authenticationResults: text("authentication_results"),
    identityAlignment: text("identity_alignment"),
    deliveryResult: text("delivery_result"),
    dkimDomain: text("dkim_domain"),
    dkimSelector: text("dkim_selector"),
    spfDns: text("spf_dns"),
    originalMailFrom: text("original_mail_from"),
    originalRcptTo: text("original_rcpt_to"),
    originalFrom: text("original_from"),
    originalSubject: text("original_subject"),
    originalMessageId: text("original_message_id"),
    originalHeaders: text("original_headers"),
    plainText: integer("plain_text", { mode: "boolean" }).notNull().default(false),
    source: text("source").notNull(),
    fileName: text("file_name"),
    processedAt: processedAt(),
  },
  (t) => [
    uniqueIndex("failure_reports_identity_unique").on(t.orgId, t.reporterOrg, t.reportId, t.domain),
    index("failure_reports_org_arrival_idx").on(t.orgId, t.arrivalDate),
    index("failure_reports_org_ip_idx").on(t.orgId, t.sourceIp),
    /** a removed domain's failure reports, found by its key's cascade (src/db/foreign-key-lookups.test.ts) */
    index("failure_reports_domain_idx").on(t.domainId, t.arrivalDate),
  ],
);

export const tlsReports = sqliteTable(
  "tls_reports",
  {
    id: id(),
    orgId: text("org_id").notNull().references(() => organizations.id, { onDelete: "cascade" }),
    domainId: text("domain_id").notNull().references(() => domains.id, { onDelete: "cascade" }),
    policyDomain: text("policy_domain").notNull(),
    reporterOrg: text("reporter_org").notNull(),
    reportId: text("report_id").notNull(),
    contactInfo: text("contact_info"),
    dateBegin: timestamp("date_begin").notNull(),
    dateEnd: timestamp("date_end").notNull(),
    successfulSessions: integer("successful_sessions").notNull(),
    failedSessions: integer("failed_sessions").notNull(),
    /** JSON array of this domain's policies with their failure details (RFC 8460 §4) */
    policies: text("policies").notNull(),
    source: text("source").notNull(),
    fileName: text("file_name"),
    processedAt: processedAt(),
  },
  (t) => [
    uniqueIndex("tls_reports_identity_unique").on(t.orgId, t.reporterOrg, t.reportId, t.policyDomain),
    index("tls_reports_org_date_idx").on(t.orgId, t.dateBegin),
    /** a removed domain's TLS reports, found by its key's cascade (src/db/foreign-key-lookups.test.ts) */
    index("tls_reports_domain_idx").on(t.domainId, t.dateBegin),
  ],
);
