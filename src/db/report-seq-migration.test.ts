/**
 * The migration that gives reports an integer `seq` and has their records carry it instead of the
 * report's 36-character id, with their From domains written "" when they repeat (record-auth.ts,
 * `storedFroms`), applies to databases with data on SQLite and PostgreSQL: every record keeps its
 * id and finds its own report; header From and envelope From read back exactly as stored before,
 * whether equal to the policy domain, a subdomain, missing or different; the old column is gone,
 * deleting a report still deletes its records, and new reports and records continue the numbers.
 */
import { expect, test } from "bun:test";
import { recordFroms } from "../features/reports/record-auth";
import { postgresMigrations, postgresMissing, sqliteBefore } from "../../tests/support/migrations";

const TAG = "report_seq";

/** [record id, report, header From, envelope From] before the migration */
const RECORDS: [number, string, string | null, string | null][] = [
  [1, "r1-o1", "example.com", "example.com"], // both the policy domain: both ""
  [2, "r1-o1", "example.com", "bounce.example.net"], // envelope elsewhere: kept
  [3, "r2-o1", "mail.example.com", "mail.example.com"], // a subdomain: header kept, envelope ""
  [4, "r2-o1", null, null], // neither given
  [5, "r1-o2", "example.org", null], // envelope not given
  [6, "r1-o2", null, "example.org"], // no header From: the envelope kept as it is
];
const REPORTS: [string, string, string][] = [
  ["r1-o1", "o1", "example.com"],
  ["r2-o1", "o1", "example.com"],
  ["r1-o2", "o2", "example.org"],
];

function seed(dialect: "sqlite" | "postgres"): string[] {
  const TRUE = dialect === "sqlite" ? "1" : "TRUE";
  // PostgreSQL's ids are generated: the seed's own ids go in over them
  const VALUES = dialect === "sqlite" ? "VALUES" : "OVERRIDING SYSTEM VALUE VALUES";
  const text = (v: string | null) => (v === null ? "NULL" : `'${v}'`);
  const rows: string[] = [];
  for (const o of ["o1", "o2"]) {
    rows.push(
      `INSERT INTO organizations (id, name, slug, plan, plan_status, report_token, created_at) VALUES ('${o}', '${o}', '${o}', 'growth', 'none', 'tok-${o}', 0)`,
      `INSERT INTO domains (id, org_id, name, overall_status, created_at) VALUES ('d-${o}', '${o}', '${o === "o1" ? "example.com" : "example.org"}', 'pending', 0)`,
    );
  }
  for (const [id, org, domain] of REPORTS) {
    rows.push(
      `INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, dmarcbis, date_begin, date_end, record_count, message_count, pass_count, source, processed_at)
       VALUES ('${id}', '${org}', 'd-${org}', '${domain}', 'google.com', '${id}', ${TRUE}, 86400, 172800, 2, 2, 2, 'upload', 0)`,
    );
  }
  for (const [id, report, headerFrom, envelopeFrom] of RECORDS) {
    const org = REPORTS.find((r) => r[0] === report)![1];
    rows.push(
      `INSERT INTO aggregate_records (id, report_id, org_id, source_ip, message_count, disposition, dmarc_pass, header_from, envelope_from, dkim_results)
       ${VALUES} (${id}, '${report}', '${org}', '192.0.2.${id}', 1, 'none', ${TRUE}, ${text(headerFrom)}, ${text(envelopeFrom)}, '[[0,"s1","pass"]]')`,
    );
  }
  return rows;
}

const READ = `SELECT r.id, p.id AS report, p.policy_domain, r.header_from, r.envelope_from, r.dkim_results
  FROM aggregate_records r JOIN aggregate_reports p ON p.org_id = r.org_id AND p.seq = r.report_seq ORDER BY r.id`;
type Read = { id: number | string; report: string; policy_domain: string; header_from: string | null; envelope_from: string | null; dkim_results: string };

function expectMigrated(rows: Read[], seqs: { id: string; seq: number | string }[]): void {
  // every report numbered, no two alike
  expect(seqs).toHaveLength(3);
  expect(new Set(seqs.map((s) => Number(s.seq))).size).toBe(3);
  // every record found through its report's seq, its From domains read back as they were
  expect(rows.map((r) => [Number(r.id), r.report, recordFroms({ headerFrom: r.header_from, envelopeFrom: r.envelope_from }, r.policy_domain)])).toEqual(
    RECORDS.map(([id, report, headerFrom, envelopeFrom]) => [id, report, { headerFrom, envelopeFrom }]),
  );
  // stored: "" where they repeat, as the writers store them
  expect(rows.map((r) => [r.header_from, r.envelope_from])).toEqual([
    ["", ""],
    ["", "bounce.example.net"],
    ["mail.example.com", ""],
    [null, null],
    ["", null],
    [null, "example.org"],
  ]);
  // the rest of the row as it was
  expect(rows.every((r) => r.dkim_results === '[[0,"s1","pass"]]')).toBe(true);
}

test("SQLite: records carry their report's seq, their From domains read back as before, the id column is gone, cascades and numbers continue", () => {
  const { db, migrate } = sqliteBefore(TAG);
  for (const s of seed("sqlite")) db.run(s);
  migrate();
  expectMigrated(db.query(READ).all() as Read[], db.query("SELECT id, seq FROM aggregate_reports ORDER BY id").all() as never);
  const columns = (db.query("PRAGMA table_info(aggregate_records)").all() as { name: string }[]).map((c) => c.name);
  expect(columns).not.toContain("report_id");
  expect(columns).toContain("report_seq");
  expect(db.query("SELECT name FROM sqlite_schema WHERE tbl_name = 'aggregate_records' AND type = 'index' AND sql IS NOT NULL").all()).toEqual([{ name: "aggregate_records_report_idx" }]);
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
  // a second report without its seq is refused (the writer always gives one)
  expect(() =>
    db.run(`INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, dmarcbis, date_begin, date_end, record_count, message_count, pass_count, source, processed_at, seq)
      VALUES ('r3-o1', 'o1', 'd-o1', 'example.com', 'google.com', 'r3', 1, 86400, 172800, 0, 0, 0, 'upload', 0, (SELECT seq FROM aggregate_reports WHERE id = 'r1-o1'))`),
  ).toThrow(/UNIQUE/);
  // new records continue the ids; deleting a report deletes its records
  const { id } = db.query("INSERT INTO aggregate_records (report_seq, org_id, source_ip, message_count, disposition, dmarc_pass) VALUES ((SELECT seq FROM aggregate_reports WHERE id = 'r1-o1'), 'o1', '192.0.2.9', 1, 'none', 1) RETURNING id").get() as { id: number };
  expect(id).toBe(7);
  db.run("DELETE FROM aggregate_reports WHERE id = 'r1-o1'");
  expect((db.query("SELECT id FROM aggregate_records ORDER BY id").all() as { id: number }[]).map((r) => r.id)).toEqual([3, 4, 5, 6]);
});

const pg = postgresMigrations();
if (postgresMissing) console.log(`PostgreSQL report seq migration test skipped: ${postgresMissing}`);
test.skipIf(!!postgresMissing)("PostgreSQL: records carry their report's seq, their From domains read back as before, the id column is gone, cascades and numbers continue", async () => {
  await pg.upTo(TAG, async ({ sql, migrate }) => {
    for (const s of seed("postgres")) await sql.unsafe(s);
    await migrate();
    expectMigrated(await sql.unsafe(READ), await sql.unsafe("SELECT id, seq FROM aggregate_reports ORDER BY id"));
    const columns = (await sql.unsafe("SELECT column_name FROM information_schema.columns WHERE table_name = 'aggregate_records'")).map((c: { column_name: string }) => c.column_name);
    expect(columns).not.toContain("report_id");
    expect(columns).toContain("report_seq");
    expect((await sql.unsafe("SELECT indexname FROM pg_indexes WHERE tablename = 'aggregate_records' ORDER BY indexname")).map((i: { indexname: string }) => i.indexname)).toEqual(["aggregate_records_org_id_id_pk", "aggregate_records_report_idx"]);
    // a new report is numbered after the existing ones
    const [{ seq }] = await sql.unsafe(`INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, dmarcbis, date_begin, date_end, record_count, message_count, pass_count, source, processed_at)
      VALUES ('r3-o1', 'o1', 'd-o1', 'example.com', 'google.com', 'r3', TRUE, 86400, 172800, 0, 0, 0, 'upload', 0) RETURNING seq`);
    expect(Number(seq)).toBe(4);
    // a record of the new report (the seed's ids went in over the generated ones); deleting a report deletes its records
    await sql.unsafe("INSERT INTO aggregate_records (id, report_seq, org_id, source_ip, message_count, disposition, dmarc_pass) OVERRIDING SYSTEM VALUE VALUES (7, 4, 'o1', '192.0.2.9', 1, 'none', TRUE)");
    await sql.unsafe("DELETE FROM aggregate_reports WHERE id = 'r1-o1'");
    expect((await sql.unsafe("SELECT id FROM aggregate_records ORDER BY id")).map((r: { id: number | string }) => Number(r.id))).toEqual([3, 4, 5, 6, 7]);
  });
}, 120_000);
