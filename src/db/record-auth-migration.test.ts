/**
 * The migration that folds aggregate_auth_results into the records and drops the records' copies
 * of their addresses' names and their reports' period start (and the index on it) applies to
 * databases with data, on SQLite and PostgreSQL: every record
 * carries the DKIM and SPF results its rows held, in their order, with selectors, scopes and human
 * results as stored (null when it had none of a method); a name only a record held is kept in its
 * organization's source_names, a name source_names already holds is left as it is; and the report
 * detail reads the results back as they were shown before.
 */
import { expect, test } from "bun:test";
import { dkimResultsOf, spfResultsOf } from "../features/reports/record-auth";
import { postgresMigrations, postgresMissing, sqliteBefore } from "../../tests/support/migrations";

const TAG = "record_auth_in_row";

function seed(dialect: "sqlite" | "postgres"): string[] {
  const TRUE = dialect === "sqlite" ? "1" : "TRUE";
  // PostgreSQL's ids are generated: the seed's own ids go in over them
  const VALUES = dialect === "sqlite" ? "VALUES" : "OVERRIDING SYSTEM VALUE VALUES";
  const rows: string[] = [];
  for (const o of ["o1", "o2"]) {
    rows.push(
      `INSERT INTO organizations (id, name, slug, plan, plan_status, report_token, created_at) VALUES ('${o}', '${o}', '${o}', 'growth', 'none', 'tok-${o}', 0)`,
      `INSERT INTO domains (id, org_id, name, overall_status, created_at) VALUES ('d-${o}', '${o}', 'example.com', 'pending', 0)`,
      `INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, dmarcbis, date_begin, date_end, record_count, message_count, pass_count, source, processed_at)
       VALUES ('r-${o}', '${o}', 'd-${o}', 'example.com', 'google.com', 'rep', ${TRUE}, 86400, 172800, 3, 3, 3, 'upload', 0)`,
    );
  }
  // o1: a record with two DKIM results (one with a human result) and one SPF, named only on the record;
  // a record with an SPF result only; a record without results. o2: a record whose name source_names already has (newer).
  rows.push(
    `INSERT INTO aggregate_records (id, report_id, org_id, date_begin, source_ip, message_count, disposition, dmarc_pass, header_from, ptr, base_domain, service, service_type)
     ${VALUES} (1, 'r-o1', 'o1', 86400, '192.0.2.1', 5, 'none', ${TRUE}, 'example.com', 'mail-1.google.com', 'google.com', 'Google', 'Email Provider')`,
    `INSERT INTO aggregate_records (id, report_id, org_id, date_begin, source_ip, message_count, disposition, dmarc_pass) ${VALUES} (2, 'r-o1', 'o1', 86400, '192.0.2.2', 1, 'none', ${TRUE})`,
    `INSERT INTO aggregate_records (id, report_id, org_id, date_begin, source_ip, message_count, disposition, dmarc_pass) ${VALUES} (3, 'r-o1', 'o1', 86400, '192.0.2.3', 1, 'reject', ${dialect === "sqlite" ? "0" : "FALSE"})`,
    `INSERT INTO aggregate_records (id, report_id, org_id, date_begin, source_ip, message_count, disposition, dmarc_pass, ptr, base_domain, service, service_type) ${VALUES} (4, 'r-o2', 'o2', 86400, '192.0.2.1', 2, 'none', ${TRUE}, 'old.example.net', 'example.net', NULL, NULL)`,
    `INSERT INTO source_names (org_id, source_ip, ptr, base_domain, service, service_type) VALUES ('o2', '192.0.2.1', 'new.example.org', 'example.org', NULL, NULL)`,
    `INSERT INTO aggregate_auth_results (id, record_id, org_id, method, domain, selector, scope, result, human_result) ${VALUES} (1, 1, 'o1', 'dkim', 'example.com', 's1', NULL, 'pass', NULL)`,
    `INSERT INTO aggregate_auth_results (id, record_id, org_id, method, domain, selector, scope, result, human_result) ${VALUES} (2, 1, 'o1', 'spf', 'example.com', NULL, 'mfrom', 'pass', NULL)`,
    `INSERT INTO aggregate_auth_results (id, record_id, org_id, method, domain, selector, scope, result, human_result) ${VALUES} (3, 1, 'o1', 'dkim', 'esp.example.net', NULL, NULL, 'fail', 'body hash "did" not verify')`,
    `INSERT INTO aggregate_auth_results (id, record_id, org_id, method, domain, selector, scope, result, human_result) ${VALUES} (4, 2, 'o1', 'spf', 'bounce.example.com', NULL, NULL, 'softfail', NULL)`,
    `INSERT INTO aggregate_auth_results (id, record_id, org_id, method, domain, selector, scope, result, human_result) ${VALUES} (5, 4, 'o2', 'dkim', 'example.com', 's2', NULL, 'pass', NULL)`,
  );
  return rows;
}

const RECORDS = "SELECT id, org_id, header_from, dkim_results, spf_results FROM aggregate_records ORDER BY id";
const NAMES = "SELECT org_id, source_ip, ptr, base_domain, service, service_type FROM source_names ORDER BY org_id, source_ip";
const TABLES = "SELECT table_name AS name FROM information_schema.tables WHERE table_name = 'aggregate_auth_results'";
const COLUMNS = ["date_begin", "ptr", "base_domain", "service", "service_type"];

function expectMigrated(records: { id: number | string; header_from: string | null; dkim_results: string | null; spf_results: string | null }[], names: Record<string, unknown>[]): void {
  const view = records.map((r) => ({ id: Number(r.id), dkim: dkimResultsOf(r.dkim_results, r.header_from), spf: spfResultsOf(r.spf_results, r.header_from) }));
  expect(view).toEqual([
    {
      id: 1,
      dkim: [
        { domain: "example.com", selector: "s1", result: "pass", humanResult: null },
        { domain: "esp.example.net", selector: null, result: "fail", humanResult: 'body hash "did" not verify' },
      ],
      spf: [{ domain: "example.com", scope: "mfrom", result: "pass", humanResult: null }],
    },
    { id: 2, dkim: [], spf: [{ domain: "bounce.example.com", scope: null, result: "softfail", humanResult: null }] },
    { id: 3, dkim: [], spf: [] },
    { id: 4, dkim: [{ domain: "example.com", selector: "s2", result: "pass", humanResult: null }], spf: [] },
  ]);
  // the header From domain written 0 (record 1's), any other as it is
  expect(JSON.parse(records[0]!.dkim_results!)).toEqual([[0, "s1", "pass"], ["esp.example.net", null, "fail", 'body hash "did" not verify']]);
  expect(JSON.parse(records[0]!.spf_results!)).toEqual([[0, "mfrom", "pass"]]);
  expect(JSON.parse(records[3]!.dkim_results!)).toEqual([["example.com", "s2", "pass"]]);
  // none of a method: null, not an empty array
  expect(records.map((r) => [r.dkim_results === null, r.spf_results === null])).toEqual([
    [false, false],
    [true, false],
    [true, true],
    [false, true],
  ]);
  expect(names).toEqual([
    { org_id: "o1", source_ip: "192.0.2.1", ptr: "mail-1.google.com", base_domain: "google.com", service: "Google", service_type: "Email Provider" },
    { org_id: "o2", source_ip: "192.0.2.1", ptr: "new.example.org", base_domain: "example.org", service: null, service_type: null },
  ]);
}

test("SQLite: every record carries its auth results, a name only a record held is kept, the old table and columns are gone", () => {
  const { db, migrate } = sqliteBefore(TAG);
  for (const s of seed("sqlite")) db.run(s);
  migrate();
  expectMigrated(db.query(RECORDS).all() as never, db.query(NAMES).all() as never);
  expect(db.query("SELECT name FROM sqlite_schema WHERE name = 'aggregate_auth_results'").all()).toEqual([]);
  const columns = (db.query("PRAGMA table_info(aggregate_records)").all() as { name: string }[]).map((c) => c.name);
  for (const c of COLUMNS) expect(columns).not.toContain(c);
  expect(db.query("SELECT name FROM sqlite_schema WHERE tbl_name = 'aggregate_records' AND type = 'index' AND sql IS NOT NULL").all()).toEqual([{ name: "aggregate_records_report_idx" }]);
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
  // new records continue the ids
  const { id } = db.query("INSERT INTO aggregate_records (report_id, org_id, source_ip, message_count, disposition, dmarc_pass) VALUES ('r-o1', 'o1', '192.0.2.9', 1, 'none', 1) RETURNING id").get() as { id: number };
  expect(id).toBe(5);
});

const pg = postgresMigrations();
if (postgresMissing) console.log(`PostgreSQL record auth migration test skipped: ${postgresMissing}`);
test.skipIf(!!postgresMissing)("PostgreSQL: every record carries its auth results, a name only a record held is kept, the old table and columns are gone", async () => {
  await pg.upTo(TAG, async ({ sql, migrate }) => {
    for (const s of seed("postgres")) await sql.unsafe(s);
    await migrate();
    expectMigrated(await sql.unsafe(RECORDS), await sql.unsafe(NAMES));
    expect(await sql.unsafe(TABLES)).toEqual([]);
    const columns = (await sql.unsafe("SELECT column_name FROM information_schema.columns WHERE table_name = 'aggregate_records'")).map((c: { column_name: string }) => c.column_name);
    for (const c of COLUMNS) expect(columns).not.toContain(c);
    expect((await sql.unsafe("SELECT indexname FROM pg_indexes WHERE tablename = 'aggregate_records' ORDER BY indexname")).map((i: { indexname: string }) => i.indexname)).toEqual(["aggregate_records_org_id_id_pk", "aggregate_records_report_idx"]);
  });
}, 120_000);
