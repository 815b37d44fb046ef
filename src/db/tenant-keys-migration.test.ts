/**
 * The migration that keys tenant tables by organisation applies to databases with data: stored
 * auth results get the organisation of their record (both stores), and on PostgreSQL every
 * stored row is still there under its new `(org_id, …)` key, the composite foreign keys hold,
 * and a row can no longer point at another organisation's row.
 */
import { expect, test } from "bun:test";
import { postgresMigrations, postgresMissing, sqliteBefore } from "../../tests/support/migrations";

const TAG = "tenant_keys";

/** Two organisations, each with a domain, a report with records and auth results, and alert rows. */
function seed(dialect: "sqlite" | "postgres"): string[] {
  const TRUE = dialect === "sqlite" ? "1" : "TRUE";
  const rows: string[] = [`INSERT INTO users (id, name, email, created_at) VALUES ('u1', 'Ann', 'ann@example.com', 0)`];
  for (const o of ["o1", "o2"]) {
    rows.push(
      `INSERT INTO organizations (id, name, slug, plan, plan_status, report_token, created_at) VALUES ('${o}', '${o}', '${o}', 'growth', 'none', 'tok-${o}', 0)`,
      `INSERT INTO memberships (id, org_id, user_id, role, created_at) VALUES ('m-${o}', '${o}', 'u1', 'owner', 0)`,
      `INSERT INTO invitations (id, org_id, email, role, token_hash, expires_at, created_at) VALUES ('i-${o}', '${o}', 'bob@example.com', 'viewer', 'hash-${o}', 0, 0)`,
      `INSERT INTO domains (id, org_id, name, overall_status, created_at) VALUES ('d-${o}', '${o}', 'example.com', 'pending', 0)`,
      `INSERT INTO aggregate_reports (id, org_id, domain_id, policy_domain, reporter_org, report_id, dmarcbis, date_begin, date_end, record_count, message_count, pass_count, source, processed_at)
       VALUES ('r-${o}', '${o}', 'd-${o}', 'example.com', 'google.com', 'rep', ${TRUE}, 86400, 172800, 2, 3, 3, 'upload', 0)`,
      ...["192.0.2.1", "192.0.2.2"].map(
        (ip) =>
          `INSERT INTO aggregate_records (report_id, org_id, date_begin, source_ip, message_count, disposition, dmarc_pass) VALUES ('r-${o}', '${o}', 86400, '${ip}', 1, 'none', ${TRUE})`,
      ),
      `INSERT INTO domain_record_history (id, org_id, domain_id, checked_at, dmarc_policy, spf_status, dkim_status, overall_status) VALUES ('h-${o}', '${o}', 'd-${o}', 0, 'none', 'pass', 'pass', 'good')`,
      `INSERT INTO daily_domain_stats (org_id, domain_id, day, messages) VALUES ('${o}', 'd-${o}', 1, 3)`,
      `INSERT INTO org_events (id, org_id, type, data, occurred_at) VALUES ('e-${o}', '${o}', 'dns_changed', '{}', 0)`,
      `INSERT INTO alert_channels (id, org_id, type, name, target, enabled, created_at) VALUES ('c-${o}', '${o}', 'email', 'Mail', 'ann@example.com', ${TRUE}, 0)`,
      `INSERT INTO alert_deliveries (id, org_id, event_id, channel_id, status, attempts, created_at) VALUES ('x-${o}', '${o}', 'e-${o}', 'c-${o}', 'delivered', 1, 0)`,
      `INSERT INTO delivery_attempts (id, org_id, delivery_id, attempted_at, ok) VALUES ('a-${o}', '${o}', 'x-${o}', 0, ${TRUE})`,
      `INSERT INTO event_reads (user_id, event_id, org_id, read_at) VALUES ('u1', 'e-${o}', '${o}', 0)`,
      `INSERT INTO dns_snapshots (domain_id, org_id, snapshot, checked_at) VALUES ('d-${o}', '${o}', '{}', 0)`,
    );
  }
  // two auth results per record (DKIM and SPF), keyed by record only before the migration
  rows.push(
    `INSERT INTO aggregate_auth_results (record_id, method, domain, result) SELECT id, 'dkim', 'example.com', 'pass' FROM aggregate_records`,
    `INSERT INTO aggregate_auth_results (record_id, method, domain, result) SELECT id, 'spf', 'example.com', 'pass' FROM aggregate_records`,
  );
  return rows;
}

const AUTH_BY_ORG = "SELECT a.org_id, count(*) AS n FROM aggregate_auth_results a JOIN aggregate_records r ON r.id = a.record_id AND r.org_id = a.org_id GROUP BY a.org_id ORDER BY a.org_id";
const numbers = (rows: Record<string, unknown>[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v])));

test("SQLite: stored auth results get their record's organization, and new ones continue the ids", () => {
  const { db, migrate } = sqliteBefore(TAG);
  for (const s of seed("sqlite")) db.run(s);
  const before = db.query("SELECT id, record_id, method FROM aggregate_auth_results ORDER BY id").all();
  migrate();

  expect(db.query("SELECT id, record_id, method FROM aggregate_auth_results ORDER BY id").all()).toEqual(before);
  expect(db.query(AUTH_BY_ORG).all()).toEqual([
    { org_id: "o1", n: 4 },
    { org_id: "o2", n: 4 },
  ]);
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
  // AUTOINCREMENT keeps counting after the rebuilt table's copied ids, and deleting a record still cascades
  const { id } = db.query("INSERT INTO aggregate_auth_results (record_id, org_id, method, domain, result) VALUES (1, 'o1', 'dkim', 'x', 'pass') RETURNING id").get() as { id: number };
  expect(id).toBe(before.length + 1);
  db.run("DELETE FROM aggregate_records WHERE id = 1");
  expect(db.query("SELECT count(*) AS n FROM aggregate_auth_results WHERE record_id = 1").get()).toEqual({ n: 0 });
  db.close();
});

const postgres = postgresMigrations();
if (postgresMissing) console.log(`PostgreSQL tenant-key migration test skipped: ${postgresMissing}`);
test.skipIf(!!postgresMissing)("PostgreSQL: every stored row keeps its place under (org_id, …) keys, and rows cannot point across organizations", async () => {
  await postgres.upTo(TAG, async ({ sql, migrate }) => {
    for (const s of seed("postgres")) await sql.unsafe(s);
    const tables = ["memberships", "invitations", "domains", "aggregate_reports", "aggregate_records", "aggregate_auth_results", "domain_record_history", "daily_domain_stats", "org_events", "alert_channels", "alert_deliveries", "delivery_attempts", "event_reads", "dns_snapshots"];
    const count = async () => Object.fromEntries(await Promise.all(tables.map(async (t) => [t, Number((await sql.unsafe(`SELECT count(*) AS n FROM ${t}`))[0].n)] as const)));
    const before = await count();
    await migrate();

    expect(await count()).toEqual(before);
    expect(numbers([...(await sql.unsafe(AUTH_BY_ORG))])).toEqual([
      { org_id: "o1", n: 4 },
      { org_id: "o2", n: 4 },
    ]);
    // the new primary keys, read from the catalog
    const keys = await sql.unsafe(`
      SELECT c.conrelid::regclass::text AS table_name, array_to_string(array_agg(a.attname ORDER BY k.ord), ',') AS columns
      FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
      WHERE c.contype = 'p' GROUP BY c.conrelid`);
    const keyOf = Object.fromEntries([...keys].map((r: { table_name: string; columns: string }) => [r.table_name, r.columns]));
    for (const t of tables) expect(keyOf[t]!.startsWith("org_id,")).toBe(true);
    expect(keyOf.aggregate_auth_results).toBe("org_id,id");
    expect(keyOf.event_reads).toBe("org_id,user_id,event_id");
    expect(keyOf.dns_snapshots).toBe("org_id,domain_id");
    expect(keyOf.users).toBe("id");

    // rows read back by their new key
    const [auth] = await sql.unsafe(`SELECT a.method, r.source_ip FROM aggregate_auth_results a JOIN aggregate_records r ON r.org_id = a.org_id AND r.id = a.record_id WHERE a.org_id = 'o2' ORDER BY a.id LIMIT 1`);
    expect(auth).toEqual({ method: "dkim", source_ip: "192.0.2.1" });
    const [delivery] = await sql.unsafe(`SELECT d.status, e.type, c.name FROM alert_deliveries d JOIN org_events e ON e.org_id = d.org_id AND e.id = d.event_id JOIN alert_channels c ON c.org_id = d.org_id AND c.id = d.channel_id WHERE d.org_id = 'o1' AND d.id = 'x-o1'`);
    expect(delivery).toEqual({ status: "delivered", type: "dns_changed", name: "Mail" });

    // the same invitation token may exist once per organisation, and is still found by the token alone
    expect((await sql.unsafe(`SELECT org_id FROM invitations WHERE token_hash = 'hash-o2'`)).map((r: { org_id: string }) => r.org_id)).toEqual(["o2"]);
    await expect(sql.unsafe(`INSERT INTO invitations (id, org_id, email, role, token_hash, expires_at, created_at) VALUES ('i-dup', 'o1', 'c@example.com', 'viewer', 'hash-o1', 0, 0)`)).rejects.toThrow(/invitations_token_hash_unique/);

    // a row of o2 pointing at o1's event, domain or record is refused
    await expect(sql.unsafe(`INSERT INTO alert_deliveries (id, org_id, event_id, channel_id, status, attempts, created_at) VALUES ('x-cross', 'o2', 'e-o1', 'c-o2', 'pending', 0, 0)`)).rejects.toThrow(/alert_deliveries_event_fk/);
    await expect(sql.unsafe(`INSERT INTO dns_snapshots (domain_id, org_id, snapshot, checked_at) VALUES ('d-o1', 'o2', '{}', 0)`)).rejects.toThrow(/dns_snapshots_domain_fk/);
    const [o1Record] = await sql.unsafe(`SELECT id FROM aggregate_records WHERE org_id = 'o1' LIMIT 1`);
    await expect(sql.unsafe(`INSERT INTO aggregate_auth_results (record_id, org_id, method, domain, result) VALUES (${o1Record.id}, 'o2', 'dkim', 'x', 'pass')`)).rejects.toThrow(/aggregate_auth_results_record_fk/);

    // deleting a domain still cascades through reports, records and auth results
    await sql.unsafe(`DELETE FROM domains WHERE org_id = 'o1' AND id = 'd-o1'`);
    expect(numbers([...(await sql.unsafe(AUTH_BY_ORG))])).toEqual([{ org_id: "o2", n: 4 }]);
    expect(Number((await sql.unsafe(`SELECT count(*) AS n FROM dns_snapshots`))[0].n)).toBe(1);
  });
}, 120_000);
