/**
 * The migration that folds daily_source_stats into daily_sender_stats keeps every sum per
 * domain, day and address (what trends' top sources, the digests, the sender page's trend and
 * the domain page's sources read) on SQLite and PostgreSQL: an address-day with one policy
 * domain takes its source row's quarantined and rejected messages; one with several (a
 * subdomain's reports counted for the domain) takes each policy domain's from its records, and
 * what retention purged on the first one; a source row without sender rows becomes one.
 */
import { expect, test } from "bun:test";
import { postgresMigrations, postgresMissing, sqliteBefore } from "../../tests/support/migrations";

const TAG = "one_per_address_rollup";
const DAY = 86_400;
const day1 = 20_400;

const report = (id: string, policyDomain: string, day: number) =>
  `INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, dmarcbis, date_begin, date_end, record_count, message_count, pass_count, source, processed_at)
   VALUES ('${id}', 'o1', 'd1', '${policyDomain}', 'google.com', '${id}', FALSE, ${day * DAY}, ${(day + 1) * DAY}, 1, 1, 1, 'upload', 0)`;
const record = (reportId: string, day: number, ip: string, count: number, disposition: string) =>
  `INSERT INTO aggregate_records (report_id, org_id, date_begin, source_ip, message_count, disposition, dkim_aligned, spf_aligned, dmarc_pass, country)
   VALUES ('${reportId}', 'o1', ${day * DAY}, '${ip}', ${count}, '${disposition}', 'fail', 'fail', FALSE, 'US')`;
const sender = (day: number, ip: string, policyDomain: string, messages: number) =>
  `INSERT INTO daily_sender_stats (org_id, day, source_ip, policy_domain, domain_id, country, messages, passed, spf_aligned, dkim_aligned, failed_delivered, first_failed_at, last_failed_at, last_begin)
   VALUES ('o1', ${day}, '${ip}', '${policyDomain}', 'd1', 'US', ${messages}, 0, 0, 0, 0, ${day * DAY}, ${day * DAY}, ${day * DAY})`;
const source = (day: number, ip: string, messages: number, quarantined: number, rejected: number) =>
  `INSERT INTO daily_source_stats (org_id, domain_id, day, source_ip, country, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned)
   VALUES ('o1', 'd1', ${day}, '${ip}', 'US', ${messages}, 1, ${quarantined}, ${rejected}, 0, 0)`;

const seed = [
  `INSERT INTO organizations (id, name, slug, plan, plan_status, report_token, created_at) VALUES ('o1', 'Org', 'org', 'growth', 'none', 'tok1', 0)`,
  `INSERT INTO domains (id, org_id, name, overall_status, created_at) VALUES ('d1', 'o1', 'example.com', 'pending', 0)`,
  // one policy domain on day1 (its records purged: only the roll-ups know)
  sender(day1, "192.0.2.1", "example.com", 10),
  source(day1, "192.0.2.1", 10, 3, 2),
  // two policy domains for one address-day: records of each, and 5 quarantined more that were purged
  report("r1", "example.com", day1 + 1),
  report("r2", "mail.example.com", day1 + 1),
  record("r1", day1 + 1, "198.51.100.7", 4, "quarantine"),
  record("r1", day1 + 1, "198.51.100.7", 6, "none"),
  record("r2", day1 + 1, "198.51.100.7", 7, "reject"),
  sender(day1 + 1, "198.51.100.7", "example.com", 10 + 5),
  sender(day1 + 1, "198.51.100.7", "mail.example.com", 7),
  source(day1 + 1, "198.51.100.7", 22, 9, 7),
  // a source row from before the sender roll-up existed (its records purged before migration 0009)
  source(day1 - 30, "203.0.113.9", 8, 0, 8),
];

const after = [
  { day: day1 - 30, source_ip: "203.0.113.9", policy_domain: "example.com", messages: 8, passed: 1, quarantined: 0, rejected: 8, first_failed_at: (day1 - 30) * DAY },
  { day: day1, source_ip: "192.0.2.1", policy_domain: "example.com", messages: 10, passed: 0, quarantined: 3, rejected: 2, first_failed_at: day1 * DAY },
  { day: day1 + 1, source_ip: "198.51.100.7", policy_domain: "example.com", messages: 15, passed: 0, quarantined: 4 + 5, rejected: 0, first_failed_at: (day1 + 1) * DAY },
  { day: day1 + 1, source_ip: "198.51.100.7", policy_domain: "mail.example.com", messages: 7, passed: 0, quarantined: 0, rejected: 7, first_failed_at: (day1 + 1) * DAY },
];
const SENDER_ROWS = "SELECT day, source_ip, policy_domain, messages, passed, quarantined, rejected, first_failed_at FROM daily_sender_stats ORDER BY day, source_ip, policy_domain";
/** per domain, day and address: what the source rows held (messages, quarantined, rejected) */
const PER_ADDRESS_DAY = (table: string) =>
  `SELECT domain_id, day, source_ip, SUM(messages) AS messages, SUM(quarantined) AS quarantined, SUM(rejected) AS rejected FROM ${table} GROUP BY domain_id, day, source_ip ORDER BY day, source_ip`;

const numbers = (rows: Record<string, unknown>[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^\d+$/.test(v) ? Number(v) : typeof v === "bigint" ? Number(v) : v])));

test("SQLite: daily_source_stats folds into daily_sender_stats with every per-address sum kept", () => {
  const { db, migrate } = sqliteBefore(TAG);
  for (const s of seed) db.run(s);
  const before = db.query(PER_ADDRESS_DAY("daily_source_stats")).all();
  migrate();
  expect(db.query(SENDER_ROWS).all()).toEqual(after);
  expect(db.query(PER_ADDRESS_DAY("daily_sender_stats")).all()).toEqual(before);
  expect(db.query("SELECT name FROM sqlite_master WHERE name = 'daily_source_stats'").all()).toEqual([]);
  db.close();
});

const postgres = postgresMigrations();
if (postgresMissing) console.log(`PostgreSQL roll-up merge migration test skipped: ${postgresMissing}`);
test.skipIf(!!postgresMissing)("PostgreSQL: the same migration keeps the same sums", async () => {
  await postgres.upTo(TAG, async ({ sql, migrate }) => {
    for (const s of seed) await sql.unsafe(s);
    const before = numbers([...(await sql.unsafe(PER_ADDRESS_DAY("daily_source_stats")))]);
    await migrate();
    expect(numbers([...(await sql.unsafe(SENDER_ROWS))])).toEqual(after);
    expect(numbers([...(await sql.unsafe(PER_ADDRESS_DAY("daily_sender_stats")))])).toEqual(before);
    expect([...(await sql.unsafe("SELECT to_regclass('daily_source_stats') AS t"))]).toEqual([{ t: null }]);
  });
}, 60_000);
