/**
 * The migration that moves each address-day's DKIM and SPF results from daily_auth_stats into its
 * daily_sender_stats row (`auth`, a JSON object of stored result key → messages: the method as d
 * or s, the result domain as = when it is the row's policy domain) applies to databases
 * with data on SQLite and PostgreSQL: every result keeps its messages; an address-day of one
 * domain with several policy domains carries them on the row of the first; a row without results
 * stays null; organizations keep their own; daily_auth_stats is gone.
 */
import { expect, test } from "bun:test";
import { postgresMigrations, postgresMissing, sqliteBefore } from "../../tests/support/migrations";

const TAG = "auth_in_sender_rows";

/** [organization, address, day, policy domain] of the sender rows before the migration */
const SENDERS: [string, string, number, string][] = [
  ["o1", "192.0.2.1", 100, "example.com"],
  ["o1", "192.0.2.2", 100, "mail.example.com"], // one domain's address-day with two policy domains
  ["o1", "192.0.2.2", 100, "example.com"],
  ["o1", "192.0.2.3", 101, "example.com"], // no results
  ["o2", "192.0.2.1", 100, "example.com"], // the same address and day in another organization
];
/** [organization, address, day, method, result domain, selector, result, messages] */
const RESULTS: [string, string, number, string, string, string, string, number][] = [
  ["o1", "192.0.2.1", 100, "dkim", "example.com", "s1", "pass", 5],
  ["o1", "192.0.2.1", 100, "spf", "example.com", "", "pass", 5],
  ["o1", "192.0.2.2", 100, "dkim", "example.com", "s1", "fail", 3],
  ["o1", "192.0.2.2", 100, "dkim", "esp.example.net", "", "none", 2],
  ["o1", "192.0.2.2", 100, "spf", "bounce.example.com", "", "pass", 7],
  ["o2", "192.0.2.1", 100, "spf", "example.com", "", "softfail", 9],
];

function seed(): string[] {
  const rows: string[] = [];
  for (const o of ["o1", "o2"]) {
    rows.push(
      `INSERT INTO organizations (id, name, slug, plan, plan_status, report_token, created_at) VALUES ('${o}', '${o}', '${o}', 'growth', 'none', 'tok-${o}', 0)`,
      `INSERT INTO domains (id, org_id, name, overall_status, created_at) VALUES ('d-${o}', '${o}', 'example.com', 'pending', 0)`,
    );
  }
  for (const [org, ip, day, policyDomain] of SENDERS) {
    rows.push(`INSERT INTO daily_sender_stats (org_id, day, source_ip, policy_domain, domain_id, messages, last_begin) VALUES ('${org}', ${day}, '${ip}', '${policyDomain}', 'd-${org}', 10, ${day * 86_400})`);
  }
  for (const [org, ip, day, method, domain, selector, result, messages] of RESULTS) {
    rows.push(
      `INSERT INTO daily_auth_stats (org_id, domain_id, source_ip, day, method, auth_domain, selector, result, messages) VALUES ('${org}', 'd-${org}', '${ip}', ${day}, '${method}', '${domain}', '${selector}', '${result}', ${messages})`,
    );
  }
  return rows;
}

const READ = "SELECT org_id, source_ip, day, policy_domain, messages, auth FROM daily_sender_stats ORDER BY org_id, source_ip, day, policy_domain";
type Read = { org_id: string; source_ip: string; day: number | string; policy_domain: string; messages: number | string; auth: string | null };

function expectMigrated(rows: Read[]): void {
  const key = (method: string, domain: string, selector: string, result: string) => [method, domain, selector, result].join("\n");
  // as the writer stores them: d or s, = for the row's policy domain
  expect(rows.map((r) => [r.org_id, r.source_ip, Number(r.day), r.policy_domain, Number(r.messages), r.auth === null ? null : JSON.parse(r.auth)])).toEqual([
    ["o1", "192.0.2.1", 100, "example.com", 10, { [key("d", "=", "s1", "pass")]: 5, [key("s", "=", "", "pass")]: 5 }],
    ["o1", "192.0.2.2", 100, "example.com", 10, { [key("d", "=", "s1", "fail")]: 3, [key("d", "esp.example.net", "", "none")]: 2, [key("s", "bounce.example.com", "", "pass")]: 7 }],
    ["o1", "192.0.2.2", 100, "mail.example.com", 10, null],
    ["o1", "192.0.2.3", 101, "example.com", 10, null],
    ["o2", "192.0.2.1", 100, "example.com", 10, { [key("s", "=", "", "softfail")]: 9 }],
  ]);
}

test("SQLite: each address-day's DKIM and SPF results move into its sender row, every message kept; daily_auth_stats is gone", () => {
  const { db, migrate } = sqliteBefore(TAG);
  for (const s of seed()) db.run(s);
  migrate();
  expectMigrated(db.query(READ).all() as Read[]);
  expect(db.query("SELECT name FROM sqlite_schema WHERE name LIKE 'daily_auth_stats%'").all()).toEqual([]);
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
});

const pg = postgresMigrations();
if (postgresMissing) console.log(`PostgreSQL auth results migration test skipped: ${postgresMissing}`);
test.skipIf(!!postgresMissing)("PostgreSQL: each address-day's DKIM and SPF results move into its sender row, every message kept; daily_auth_stats is gone", async () => {
  await pg.upTo(TAG, async ({ sql, migrate }) => {
    for (const s of seed()) await sql.unsafe(s);
    await migrate();
    expectMigrated(await sql.unsafe(READ));
    expect(await sql.unsafe("SELECT tablename FROM pg_tables WHERE tablename = 'daily_auth_stats'")).toEqual([]);
  });
}, 120_000);
