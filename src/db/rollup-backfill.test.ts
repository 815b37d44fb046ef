/**
 * Databases with reports from before the daily roll-ups get them on migration: the migration
 * that adds the roll-up tables fills them from the stored records (day = the UTC day on which a
 * report's range begins), on SQLite and on PostgreSQL.
 */
import { expect, test } from "bun:test";
import { postgresMigrations, postgresMissing, sqliteBefore } from "../../tests/support/migrations";

const ROLLUP_TAG = "monitoring_and_alerts";
const DAY = 86_400;
const day1 = 20_000; // 2024-10-04

/** Two reports of one domain on two days; the first has a passing and a failing record. */
const seed = [
  `INSERT INTO organizations (id, name, slug, plan, plan_status, report_token, created_at) VALUES ('o1', 'Org', 'org', 'growth', 'none', 'tok1', 0)`,
  `INSERT INTO domains (id, org_id, name, overall_status, created_at) VALUES ('d1', 'o1', 'example.com', 'pending', 0)`,
  ...[
    ["r1", day1 * DAY + 3600],
    ["r2", (day1 + 1) * DAY],
  ].map(
    ([id, begin]) =>
      `INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, dmarcbis, date_begin, date_end, record_count, message_count, pass_count, source, processed_at)
       VALUES ('${id}', 'o1', 'd1', 'example.com', 'google.com', '${id}', FALSE, ${begin}, ${Number(begin) + DAY}, 1, 1, 1, 'upload', 0)`,
  ),
  `INSERT INTO aggregate_records (report_id, org_id, date_begin, source_ip, message_count, disposition, dkim_aligned, spf_aligned, dmarc_pass, country)
   VALUES ('r1', 'o1', ${day1 * DAY + 3600}, '192.0.2.1', 10, 'none', 'pass', 'fail', TRUE, 'US')`,
  `INSERT INTO aggregate_records (report_id, org_id, date_begin, source_ip, message_count, disposition, dkim_aligned, spf_aligned, dmarc_pass, country)
   VALUES ('r1', 'o1', ${day1 * DAY + 3600}, '198.51.100.7', 4, 'reject', 'fail', 'fail', FALSE, 'RU')`,
  `INSERT INTO aggregate_records (report_id, org_id, date_begin, source_ip, message_count, disposition, dkim_aligned, spf_aligned, dmarc_pass, country)
   VALUES ('r2', 'o1', ${(day1 + 1) * DAY}, '192.0.2.1', 7, 'quarantine', 'fail', 'pass', TRUE, 'US')`,
];

const expectedDomainDays = [
  { day: day1, messages: 14, passed: 10, quarantined: 0, rejected: 4, spf_aligned: 0, dkim_aligned: 10 },
  { day: day1 + 1, messages: 7, passed: 7, quarantined: 7, rejected: 0, spf_aligned: 7, dkim_aligned: 0 },
];

const numbers = (rows: Record<string, unknown>[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v])));

test("SQLite: the roll-up migration fills daily stats from the records stored before it", () => {
  const { db, migrate } = sqliteBefore(ROLLUP_TAG);
  for (const s of seed) db.run(s);
  migrate();
  expect(db.query("SELECT day, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned FROM daily_domain_stats ORDER BY day").all()).toEqual(expectedDomainDays);
  expect(db.query("SELECT day, source_ip, country, messages, passed FROM daily_source_stats ORDER BY day, source_ip").all()).toEqual([
    { day: day1, source_ip: "192.0.2.1", country: "US", messages: 10, passed: 10 },
    { day: day1, source_ip: "198.51.100.7", country: "RU", messages: 4, passed: 0 },
    { day: day1 + 1, source_ip: "192.0.2.1", country: "US", messages: 7, passed: 7 },
  ]);
  db.close();
});

const postgres = postgresMigrations();
if (postgresMissing) console.log(`PostgreSQL roll-up backfill test skipped: ${postgresMissing}`);
test.skipIf(!!postgresMissing)("PostgreSQL: the same migration fills the same daily stats", async () => {
  await postgres.upTo(ROLLUP_TAG, async ({ sql, migrate }) => {
    for (const s of seed) await sql.unsafe(s);
    await migrate();
    const rows = await sql.unsafe("SELECT day, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned FROM daily_domain_stats ORDER BY day");
    expect(numbers([...rows])).toEqual(expectedDomainDays);
  });
}, 60_000);
