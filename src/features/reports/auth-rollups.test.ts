/**
 * The roll-ups the domain page and the threat map read instead of the records or the per-IP
 * rows: the DKIM and SPF results per domain, source IP and day (daily_sender_stats' `auth`; a table
 * of their own, daily_auth_stats, until migration 0029 / PostgreSQL 0027),
 * dkim_selectors_seen (DKIM selectors per domain row and signing domain) and
 * daily_country_stats (messages per day, domain and country). Both report writers fill them in the report's transaction (a streamed
 * upload in batches, a small report whole); their migrations' backfill gives the same rows
 * from the stored records (the results through daily_auth_stats and 0029's fold); they go with their domain. Runs on the store the suite runs on.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { gzipSync, strToU8 } from "fflate";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";
import { MIGRATIONS } from "../../db/migrations.gen";
import { PG_MIGRATIONS } from "../../db/migrations-pg.gen";
import { migrationStatements } from "../../../tests/support/migrations";
import { aggregateXml, type GeneratedRecord } from "../../lib/reports/generate";
import { reverseDnsSettled } from "./reverse-dns";
import { RECORD_BATCH } from "./streamed-write";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

const ADDRESSES = 300;
const records = (n: number, shift = 0): GeneratedRecord[] =>
  Array.from({ length: n }, (_, j) => ({
    sourceIp: `10.2.${(((j + shift) % ADDRESSES) >> 8) & 255}.${(j + shift) % ADDRESSES & 255}`,
    count: 1 + (j % 7),
    dkim: j % 4 === 0 ? "fail" : "pass",
    spf: j % 3 === 0 ? "fail" : "pass",
    disposition: "none",
    // a selector written in two cases, a third-party signer, and a record signed twice
    dkimAuth: [
      { domain: j % 5 === 0 ? "Mail.Example.com" : "example.com", selector: j % 2 ? "S1" : "s1", result: j % 4 === 0 ? "fail" : "pass" },
      ...(j % 6 === 0 ? [{ domain: "esp.example.net", selector: "k2", result: "pass" }] : []),
    ],
    spfAuth: [{ domain: j % 2 ? "bounce.example.com" : "example.com", scope: "mfrom", result: j % 3 === 0 ? "fail" : "pass" }],
  }));
const report = (reportId: string, n: number, day: string, shift = 0) =>
  aggregateXml({ orgName: "google.com", reportId, begin: new Date(`${day}T00:00:00Z`), end: new Date(`${day}T23:59:59Z`), domain: "example.com", records: records(n, shift) });

function upload(cookie: string, name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], name));
  return t.json("POST", "/api/reports/upload", { body: form, cookie });
}

const SELECTORS = "SELECT org_id, domain_id, auth_domain, selector, last_begin, results FROM dkim_selectors_seen ORDER BY org_id, domain_id, auth_domain, selector";
const COUNTRIES = "SELECT org_id, day, domain_id, country, messages, passed FROM daily_country_stats ORDER BY org_id, day, domain_id, country";
const rowsOf = async (query: string) =>
  (await t.deps.store.rows<Record<string, unknown>>(sql.raw(query))).map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "bigint" || (typeof v === "string" && /^\d+$/.test(v) && k !== "source_ip") ? Number(v) : v])));

/**
 * The DKIM and SPF results the sender rows carry, one row per organization, domain, address, day
 * and result (summed over the address-day's policy domains), in that order: what daily_auth_stats held.
 */
async function authRows() {
  const rows = await t.deps.store.rows<{ org_id: string; domain_id: string; source_ip: string; day: number | string; policy_domain: string; auth: string }>(
    sql`SELECT org_id, domain_id, source_ip, day, policy_domain, auth FROM daily_sender_stats WHERE auth IS NOT NULL`,
  );
  const summed = new Map<string, { org_id: string; domain_id: string; source_ip: string; day: number; method: string; auth_domain: string; selector: string; result: string; messages: number }>();
  for (const r of rows) {
    // stored keys: the method as d or s, the result domain as = when it is the row's policy domain
    for (const [key, messages] of Object.entries(JSON.parse(r.auth) as Record<string, number>)) {
      const [m, domain, selector, result] = key.split("\n") as [string, string, string, string];
      const method = m === "d" ? "dkim" : "spf";
      const auth_domain = domain === "=" ? r.policy_domain.toLowerCase() : domain;
      const at = [r.org_id, r.domain_id, r.source_ip, r.day, method, auth_domain, selector, result].join("\t");
      const cur = summed.get(at);
      if (cur) cur.messages += Number(messages);
      else summed.set(at, { org_id: r.org_id, domain_id: r.domain_id, source_ip: r.source_ip, day: Number(r.day), method, auth_domain, selector, result, messages: Number(messages) });
    }
  }
  const order = (x: { org_id: string; domain_id: string; source_ip: string; day: number; method: string; auth_domain: string; selector: string; result: string }) =>
    [x.org_id, x.domain_id, x.source_ip, String(x.day).padStart(8, "0"), x.method, x.auth_domain, x.selector, x.result].join("\t");
  return [...summed.values()].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/** The first statement of the suite's store's migrations that `matches` (comments dropped). */
function statementOf(matches: (statement: string) => boolean): string {
  const migrations = t.deps.store.dialect === "sqlite" ? MIGRATIONS : PG_MIGRATIONS;
  const found = migrations
    .flatMap((m) => migrationStatements(m.sql))
    .map((s) => s.replace(/^\s*--.*$/gm, "").trim())
    .find(matches);
  expect(found).toBeDefined();
  return found!;
}

/** The backfill INSERT of `table` from the migration that created it, for the suite's store. */
const backfillOf = (table: string) => statementOf((s) => s.startsWith(`INSERT INTO ${table} `));

/**
 * The rows aggregate_auth_results held, read from the records' DKIM and SPF results (a domain 0 is
 * the record's header From, itself '' when it is its report's policy domain).
 */
const AUTH_RESULTS_VIEW = {
  sqlite: `CREATE VIEW aggregate_auth_results AS
    SELECT r.id AS record_id, r.org_id, 'dkim' AS method, CASE WHEN j.value ->> 0 = 0 THEN CASE WHEN r.header_from = '' THEN (SELECT p.policy_domain FROM aggregate_reports p WHERE p.org_id = r.org_id AND p.seq = r.report_seq) ELSE r.header_from END ELSE j.value ->> 0 END AS domain,
      j.value ->> 1 AS selector, NULL AS scope, j.value ->> 2 AS result, j.value ->> 3 AS human_result
    FROM aggregate_records r, json_each(r.dkim_results) j
    UNION ALL
    SELECT r.id, r.org_id, 'spf', CASE WHEN j.value ->> 0 = 0 THEN CASE WHEN r.header_from = '' THEN (SELECT p.policy_domain FROM aggregate_reports p WHERE p.org_id = r.org_id AND p.seq = r.report_seq) ELSE r.header_from END ELSE j.value ->> 0 END, NULL, j.value ->> 1, j.value ->> 2, j.value ->> 3
    FROM aggregate_records r, json_each(r.spf_results) j`,
  postgres: `CREATE VIEW aggregate_auth_results AS
    SELECT r.id AS record_id, r.org_id, 'dkim'::text AS method, CASE WHEN jsonb_typeof(j -> 0) = 'number' THEN CASE WHEN r.header_from = '' THEN (SELECT p.policy_domain FROM aggregate_reports p WHERE p.org_id = r.org_id AND p.seq = r.report_seq) ELSE r.header_from END ELSE j ->> 0 END AS domain,
      j ->> 1 AS selector, NULL::text AS scope, j ->> 2 AS result, j ->> 3 AS human_result
    FROM aggregate_records r, jsonb_array_elements(r.dkim_results::jsonb) j
    UNION ALL
    SELECT r.id, r.org_id, 'spf', CASE WHEN jsonb_typeof(j -> 0) = 'number' THEN CASE WHEN r.header_from = '' THEN (SELECT p.policy_domain FROM aggregate_reports p WHERE p.org_id = r.org_id AND p.seq = r.report_seq) ELSE r.header_from END ELSE j ->> 0 END, NULL, j ->> 1, j ->> 2, j ->> 3
    FROM aggregate_records r, jsonb_array_elements(r.spf_results::jsonb) j`,
};

test("both writers roll up DKIM and SPF results, selectors and countries as the migrations' backfill does; a duplicate changes nothing; they go with their domain", async () => {
  const member = await signedInMember(t.deps.store, "member");
  const { store } = t.deps;
  await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name: "example.com" }));
  const big = RECORD_BATCH + 1_500;
  // streamed in batches (gzip over one batch), then small reports known whole, on two days
  for (const [name, xml] of [
    ["big.xml.gz", report("big", big, "2026-03-01")],
    ["small.xml", report("small", 40, "2026-03-01", 7)],
    ["next.xml", report("next", 25, "2026-03-02", 3)],
  ] as const) {
    const res = await upload(member.cookie, name, name.endsWith(".gz") ? gzipSync(strToU8(xml)) : strToU8(xml));
    expect(res.body.results[0]).toMatchObject({ status: "ingested" });
  }
  const again = await upload(member.cookie, "small-again.xml", strToU8(report("small", 40, "2026-03-01", 7)));
  expect(again.body.results[0]).toMatchObject({ status: "duplicate" });

  const auth = await authRows();
  const selectors = await rowsOf(SELECTORS);
  const countries = await rowsOf(COUNTRIES);
  // per country: the day's messages of the domain (the 10.x test addresses are not located)
  expect(countries.map((r) => [r.day, r.country, r.messages])).toEqual([
    [Date.parse("2026-03-01") / 86_400_000, "", [...records(big), ...records(40, 7)].reduce((n, r) => n + r.count, 0)],
    [Date.parse("2026-03-02") / 86_400_000, "", records(25, 3).reduce((n, r) => n + r.count, 0)],
  ]);
  // every DKIM and SPF result counted with its record's messages, domains lowercased (selectors as reported; lowercased for dkim_selectors_seen)
  const all = [...records(big), ...records(40, 7), ...records(25, 3)];
  const sum = (method: string) => auth.filter((r) => r.method === method).reduce((n, r) => n + Number(r.messages), 0);
  expect(sum("spf")).toBe(all.reduce((n, r) => n + r.count, 0));
  expect(sum("dkim")).toBe(all.reduce((n, r) => n + r.count * r.dkimAuth!.length, 0));
  expect([...new Set(auth.map((r) => `${r.method} ${r.auth_domain} ${r.selector}`))].sort()).toEqual([
    "dkim esp.example.net k2", "dkim example.com S1", "dkim example.com s1", "dkim mail.example.com S1", "dkim mail.example.com s1", "spf bounce.example.com ", "spf example.com ",
  ]);
  expect(selectors.map((r) => [r.auth_domain, r.selector, r.results, r.last_begin])).toEqual([
    ["esp.example.net", "k2", all.filter((r) => r.dkimAuth!.length > 1).length, Date.parse("2026-03-02T00:00:00Z") / 1000],
    ["example.com", "s1", all.filter((r) => r.dkimAuth![0]!.domain === "example.com").length, Date.parse("2026-03-02T00:00:00Z") / 1000],
    ["mail.example.com", "s1", all.filter((r) => r.dkimAuth![0]!.domain !== "example.com").length, Date.parse("2026-03-02T00:00:00Z") / 1000],
  ]);

  // the migrations' backfill from the stored records gives the same rows
  await store.write(async () => {
    await store.rows(sql`UPDATE daily_sender_stats SET auth = NULL`);
    await store.rows(sql`DELETE FROM dkim_selectors_seen`);
    await store.rows(sql`DELETE FROM daily_country_stats`);
  });
  expect(await authRows()).toEqual([]);
  await store.write(async () => {
    // the backfills read aggregate_auth_results, since folded into the records (record-auth.ts): a view
    // of the results the records carry stands in for it, so the records must hold every result
    await store.rows(sql.raw(AUTH_RESULTS_VIEW[store.dialect]));
    // and records find their report by its seq (0028 / PostgreSQL 0026), no longer by its id
    const bySeq = (backfill: string) => {
      expect(backfill).toContain("a.id = r.report_id");
      return backfill.replace("a.id = r.report_id", "a.seq = r.report_seq");
    };
    // the results went into daily_auth_stats (0016 / PostgreSQL 0015), then into the sender rows (0029 / 0027)
    await store.rows(sql.raw(`CREATE TABLE daily_auth_stats (org_id text NOT NULL, domain_id text NOT NULL, source_ip text NOT NULL, day integer NOT NULL, method text NOT NULL,
      auth_domain text NOT NULL, selector text NOT NULL DEFAULT '', result text NOT NULL, messages bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (org_id, domain_id, source_ip, day, method, auth_domain, selector, result))`));
    await store.rows(sql.raw(bySeq(backfillOf("daily_auth_stats"))));
    await store.rows(sql.raw(statementOf((s) => /^UPDATE daily_sender_stats (s )?SET auth = /.test(s))));
    await store.rows(sql`DROP TABLE daily_auth_stats`);
    await store.rows(sql.raw(bySeq(backfillOf("dkim_selectors_seen"))));
    await store.rows(sql`DROP VIEW aggregate_auth_results`);
    // 0019's backfill read daily_source_stats, since folded into daily_sender_stats (the same sums per domain, day and address)
    await store.rows(sql.raw(backfillOf("daily_country_stats").replace("FROM daily_source_stats", "FROM daily_sender_stats")));
  });
  expect(await authRows()).toEqual(auth);
  expect(await rowsOf(SELECTORS)).toEqual(selectors);
  expect(await rowsOf(COUNTRIES)).toEqual(countries);

  // deleting the domain deletes its roll-ups
  await store.write(() => store.rows(sql`DELETE FROM domains WHERE org_id = ${member.orgId}`));
  expect(await authRows()).toEqual([]);
  expect(await rowsOf(SELECTORS)).toEqual([]);
  expect(await rowsOf(COUNTRIES)).toEqual([]);
}, 120_000);

test("deleting an organization deletes its roll-ups (on PostgreSQL through its domains) and keeps another organization's", async () => {
  const { store } = t.deps;
  const members = [await signedInMember(store, "member"), await signedInMember(store, "member")];
  for (const member of members) {
    await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name: "example.com" }));
    const res = await upload(member.cookie, "small.xml", strToU8(report("small", 40, "2026-03-01")));
    expect(res.body.results[0]).toMatchObject({ status: "ingested" });
  }
  const rollupRows = async (orgId: string) => {
    const counts: number[] = [];
    for (const table of ["daily_domain_stats", "daily_sender_stats", "daily_country_stats", "dkim_selectors_seen"])
      counts.push(Number((await store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE org_id = ${orgId}`))[0]!.n));
    return counts;
  };
  const [gone, kept] = members.map((m) => m.orgId) as [string, string];
  expect((await rollupRows(gone)).every((n) => n > 0)).toBe(true);
  const before = await rollupRows(kept);
  await store.write(() => store.rows(sql`DELETE FROM organizations WHERE id = ${gone}`));
  expect(await rollupRows(gone)).toEqual([0, 0, 0, 0]);
  expect(await rollupRows(kept)).toEqual(before);
});

test("a report's records and a domain's sender and country roll-ups go with it: removing a domain deletes its reports' records and its roll-up rows, deleting an organization all of them, and nothing of another domain or organization", async () => {
  // on PostgreSQL records have no foreign key to their report, nor sender and country rows to their domain (migrations 0029, 0031): statement triggers delete them
  const { store } = t.deps;
  const [owner, other] = [await signedInMember(store, "owner"), await signedInMember(store, "owner")];
  const domainIds: Record<string, string> = {};
  for (const [member, name] of [[owner, "example.com"], [owner, "example.org"], [other, "example.com"]] as const) {
    const [row] = await store.write((tx) => tx.insert(store.t.domains).values({ orgId: member.orgId, name }).returning({ id: store.t.domains.id }));
    domainIds[`${member.orgId}/${name}`] = row!.id;
    const xml = report(`r-${name}`, 30, "2026-03-01").replaceAll("<domain>example.com</domain>", `<domain>${name}</domain>`);
    expect((await upload(member.cookie, `${name}.xml`, strToU8(xml))).body.results[0]).toMatchObject({ status: "ingested" });
  }
  const recordsOf = async (orgId: string, domain: string) =>
    Number((await store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM aggregate_records r JOIN aggregate_reports a ON a.org_id = r.org_id AND a.seq = r.report_seq WHERE r.org_id = ${orgId} AND a.policy_domain = ${domain}`))[0]!.n);
  const allRecordsOf = async (orgId: string) => Number((await store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM aggregate_records WHERE org_id = ${orgId}`))[0]!.n);
  const senderRowsOf = async (orgId: string, domain?: string) =>
    Number((await store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM daily_sender_stats WHERE org_id = ${orgId} ${domain ? sql`AND policy_domain = ${domain}` : sql``}`))[0]!.n);
  const countryRowsOf = async (orgId: string, domainId?: string) =>
    Number((await store.rows<{ n: number | string }>(sql`SELECT count(*) AS n FROM daily_country_stats WHERE org_id = ${orgId} ${domainId ? sql`AND domain_id = ${domainId}` : sql``}`))[0]!.n);
  const countries: [number, number, number] = [await countryRowsOf(owner.orgId, domainIds[`${owner.orgId}/example.com`]), await countryRowsOf(owner.orgId, domainIds[`${owner.orgId}/example.org`]), await countryRowsOf(other.orgId)];
  expect(countries.every((n) => n > 0)).toBe(true);
  expect([await recordsOf(owner.orgId, "example.com"), await recordsOf(owner.orgId, "example.org"), await recordsOf(other.orgId, "example.com")]).toEqual([30, 30, 30]);
  // 30 records from 30 addresses: a sender row each
  expect([await senderRowsOf(owner.orgId, "example.com"), await senderRowsOf(owner.orgId, "example.org"), await senderRowsOf(other.orgId)]).toEqual([30, 30, 30]);

  const removed = await t.json("DELETE", `/api/domains/${domainIds[`${owner.orgId}/example.com`]}`, { cookie: owner.cookie });
  expect(removed.status).toBeLessThan(300);
  // the report rows went with the domain; their records (and no record of theirs left behind, orphaned) with them
  expect(await allRecordsOf(owner.orgId)).toBe(30);
  expect(await recordsOf(owner.orgId, "example.org")).toBe(30);
  expect(await allRecordsOf(other.orgId)).toBe(30);
  expect([await senderRowsOf(owner.orgId), await senderRowsOf(owner.orgId, "example.org"), await senderRowsOf(other.orgId)]).toEqual([30, 30, 30]);
  expect([await countryRowsOf(owner.orgId), await countryRowsOf(owner.orgId, domainIds[`${owner.orgId}/example.org`]), await countryRowsOf(other.orgId)]).toEqual([countries[1], countries[1], countries[2]]);

  await store.write(() => store.rows(sql`DELETE FROM organizations WHERE id = ${owner.orgId}`));
  expect(await allRecordsOf(owner.orgId)).toBe(0);
  expect(await allRecordsOf(other.orgId)).toBe(30);
  expect(await recordsOf(other.orgId, "example.com")).toBe(30);
  expect([await senderRowsOf(owner.orgId), await senderRowsOf(other.orgId)]).toEqual([0, 30]);
  expect([await countryRowsOf(owner.orgId), await countryRowsOf(other.orgId)]).toEqual([0, countries[2]]);
});
