/**
 * Daily roll-ups of an aggregate report, written by both report writers in the same
 * transaction as the report (and only when the report is new, so a duplicate changes nothing).
 *
 * The rule, the same as the migration's backfill: `day` is the UTC day (days since 1970-01-01)
 * of the report's `date_begin` — a report spanning several days counts on its first day;
 * `passed` counts messages with DMARC pass (aligned SPF or aligned DKIM); `quarantined` and
 * `rejected` count the disposition applied; `spfAligned`/`dkimAligned` the aligned verdict "pass";
 * a source row's country is the one located for its IP at ingest.
 */
import { sql } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import { recordPassesDmarc } from "../../lib/reports/aggregate";
import type { AggregateRecord, AggregateReport } from "../../lib/reports/model";
import { insertJsonRows, insertRows, ROWS_PER_STATEMENT } from "../../db/json-rows";
import { raiseRollupVersions, unsettledFrom } from "./read-cache";

export interface RollupCounts {
  messages: number;
  passed: number;
  quarantined: number;
  rejected: number;
  spfAligned: number;
  dkimAligned: number;
}

export interface SourceRollup extends RollupCounts {
  sourceIp: string;
  country: string | null;
  /** for daily_sender_stats: the IP's city, failing mail delivered, and the epoch-second times */
  city: string | null;
  failedDelivered: number;
  firstFailedAt: number | null;
  lastFailedAt: number | null;
  lastBegin: number;
  /** for daily_sender_stats' `auth`: messages per DKIM/SPF result (authKey: method, domain lowercased, selector or '', result) */
  auth: Map<string, number>;
}

/** The key of one DKIM or SPF result of a source (authResultsText): method, result domain (lowercased), selector ('' for none) and result. */
export const authKey = (method: "dkim" | "spf", domain: string, selector: string | null, result: string) => `${method}\n${domain.toLowerCase()}\n${selector ?? ""}\n${result}`;

/**
 * Keys made from three strings, kept for the next time the same three come: a report's records
 * repeat a few DKIM/SPF results, so a batch adds to the roll-up without making a key string (and
 * its lower-cased copy) per result of every record. Bounded: emptied once it holds `max` keys.
 */
class KeyCache {
  private keys = new Map<string, Map<string, Map<string, string>>>();
  private size = 0;
  constructor(private readonly max: number) {}

  get(a: string, b: string, c: string, make: () => string): string {
    let byB = this.keys.get(a);
    if (!byB) this.keys.set(a, (byB = new Map()));
    let byC = byB.get(b);
    if (!byC) byB.set(b, (byC = new Map()));
    let key = byC.get(c);
    if (key === undefined) {
      if (this.size >= this.max) {
        this.keys = new Map([[a, (byB = new Map([[b, (byC = new Map())]]))]]);
        this.size = 0;
      }
      byC.set(c, (key = make()));
      this.size++;
    }
    return key;
  }
}

const KEYS_KEPT = 4096;
const dkimKeys = new KeyCache(KEYS_KEPT);
const spfKeys = new KeyCache(KEYS_KEPT);
const selectorKeys = new KeyCache(KEYS_KEPT);
const dkimKey = (domain: string, selector: string | null, result: string) => dkimKeys.get(domain, selector ?? "", result, () => authKey("dkim", domain, selector, result));
const spfKey = (domain: string, result: string) => spfKeys.get(domain, "", result, () => authKey("spf", domain, null, result));
const keptSelectorKey = (domain: string, selector: string) => selectorKeys.get(domain, selector, "", () => selectorKey(domain, selector));

export interface ReportRollup {
  day: number;
  /** the domain's totals of the report, null when the report has no records */
  domain: RollupCounts | null;
  /** one row per source IP of the report */
  sources: SourceRollup[];
  /** for dkim_selectors_seen: DKIM results per signing domain and selector (selectorKey), the report's period start */
  selectors: Map<string, number>;
  begin: number;
}

/** The key of one dkim_selectors_seen row of a report: the signing domain and the selector, both lowercased. */
const selectorKey = (domain: string, selector: string) => `${domain.toLowerCase()}\n${selector.toLowerCase()}`;

const SECONDS_PER_DAY = 86_400;

/** UTC days since 1970-01-01 of `date`. */
export function utcDay(date: Date): number {
  return Math.floor(date.getTime() / 1000 / SECONDS_PER_DAY);
}

const bumpAuth = (into: Map<string, number>, key: string, by: number) => into.set(key, (into.get(key) ?? 0) + by);

const zero = (): RollupCounts => ({ messages: 0, passed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0 });

/** A report's roll-up before any of its records (see addRecordsToRollup). */
export function emptyRollup(head: Pick<AggregateReport, "dateBegin">): ReportRollup {
  return { day: utcDay(head.dateBegin), domain: null, sources: [], selectors: new Map(), begin: Math.floor(head.dateBegin.getTime() / 1000) };
}

/**
 * Adds `records` of the report `head` to its roll-up `rollup` (`byIp`: the roll-up's sources by
 * address, kept with it): the report's day totals, whole and per source IP (`locate` gives an IP's
 * country, or its country and city). A report read in batches adds each batch in place, without a
 * roll-up of its own to merge. `processedAt` is when the report is stored: failing mail counts as
 * seen at the report period's end, or at its arrival when that is earlier.
 */
export function addRecordsToRollup(
  rollup: ReportRollup,
  byIp: Map<string, SourceRollup>,
  head: Pick<AggregateReport, "dateEnd">,
  records: readonly AggregateRecord[],
  locate: (ip: string) => string | null | { country: string | null; city: string | null },
  processedAt: Date,
): void {
  if (!records.length) return;
  const { begin, selectors } = rollup;
  const seen = Math.floor(Math.min(head.dateEnd.getTime(), processedAt.getTime()) / 1000);
  const domain = (rollup.domain ??= zero());
  for (const r of records) {
    let source = byIp.get(r.sourceIp);
    if (!source) {
      const where = locate(r.sourceIp);
      const place = where !== null && typeof where === "object" ? where : { country: where, city: null };
      source = {
        sourceIp: r.sourceIp, country: place.country, city: place.city,
        messages: 0, passed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0,
        failedDelivered: 0, firstFailedAt: null, lastFailedAt: null, lastBegin: begin, auth: new Map(),
      };
      byIp.set(r.sourceIp, source);
      rollup.sources.push(source);
    }
    const n = r.count;
    const passes = recordPassesDmarc(r);
    if (!passes) {
      source.firstFailedAt = begin;
      source.lastFailedAt = seen;
      if (r.disposition === "none") source.failedDelivered += n;
    }
    for (const d of r.dkimResults) {
      bumpAuth(source.auth, dkimKey(d.domain, d.selector, d.result), n);
      if (d.selector) bumpAuth(selectors, keptSelectorKey(d.domain, d.selector), 1);
    }
    for (const f of r.spfResults) bumpAuth(source.auth, spfKey(f.domain, f.result), n);
    const quarantined = r.disposition === "quarantine" ? n : 0;
    const rejected = r.disposition === "reject" ? n : 0;
    const spfAligned = r.spfAligned === "pass" ? n : 0;
    const dkimAligned = r.dkimAligned === "pass" ? n : 0;
    const passed = passes ? n : 0;
    addRecordCounts(domain, n, passed, quarantined, rejected, spfAligned, dkimAligned);
    addRecordCounts(source, n, passed, quarantined, rejected, spfAligned, dkimAligned);
  }
}

/** Adds one record's messages and those of them passing, quarantined, rejected and aligned to `into` (no object per record). */
function addRecordCounts(into: RollupCounts, messages: number, passed: number, quarantined: number, rejected: number, spfAligned: number, dkimAligned: number): void {
  into.messages += messages;
  into.passed += passed;
  into.quarantined += quarantined;
  into.rejected += rejected;
  into.spfAligned += spfAligned;
  into.dkimAligned += dkimAligned;
}

/**
 * A source's DKIM and SPF results as daily_sender_stats' `auth` column (docs/rollups.md): a JSON
 * object of each result's stored key to its messages, null without results. The stored key is
 * an authKey written short — the method as `d` or `s`, the result domain as `=` when it is the
 * row's policy domain (most results name the domain itself) — so the rows every window read
 * scans stay narrow: `{"d\n=\ns1\npass":12,"s\n=\n\npass":12}`. Keys are made once per policy
 * domain and kept (a report's sources repeat a few results).
 */
export function authResultsText(auth: ReadonlyMap<string, number>, policyDomain: string): string | null {
  if (auth.size === 0) return null;
  let kept = storedKeys.get(policyDomain);
  if (!kept) {
    if (storedKeys.size >= KEYS_KEPT) storedKeys.clear();
    storedKeys.set(policyDomain, (kept = new Map()));
  }
  let out = "{";
  for (const [key, messages] of auth) {
    let quoted = kept.get(key);
    if (quoted === undefined) {
      if (kept.size >= KEYS_KEPT) kept.clear();
      kept.set(key, (quoted = JSON.stringify(storedKey(key, policyDomain.toLowerCase()))));
    }
    out += out.length === 1 ? `${quoted}:${messages}` : `,${quoted}:${messages}`;
  }
  return `${out}}`;
}

/** authResultsText's quoted stored keys of the results seen last, per policy domain: bounded, like KeyCache */
const storedKeys = new Map<string, Map<string, string>>();

/** An authKey as daily_sender_stats' `auth` stores it, for a row of `policyDomain` (lowercased). */
function storedKey(key: string, policyDomain: string): string {
  const [method, domain, selector, result] = key.split("\n") as [string, string, string, string];
  return `${method === "dkim" ? "d" : "s"}\n${domain === policyDomain ? "=" : domain}\n${selector}\n${result}`;
}

/** One DKIM or SPF result of a source, read back from daily_sender_stats' `auth`. */
export interface AuthResult {
  method: "dkim" | "spf";
  /** lowercased */
  authDomain: string;
  /** '' for none */
  selector: string;
  result: string;
  messages: number;
}

/** A daily_sender_stats row's `auth` column read back (nothing for null), its row's policy domain resolving `=`. */
export function authResultsOf(text: string | null, policyDomain: string): AuthResult[] {
  if (!text) return [];
  const out: AuthResult[] = [];
  for (const [key, messages] of Object.entries(JSON.parse(text) as Record<string, number | string>)) {
    const [method, domain, selector, result] = key.split("\n") as [string, string, string, string];
    out.push({ method: method === "d" ? "dkim" : "spf", authDomain: domain === "=" ? policyDomain.toLowerCase() : domain, selector, result, messages: Number(messages) });
  }
  return out;
}

/**
 * The SQLite upsert of one daily_sender_stats row (values in the order of senderDayValues). Two
 * `auth` objects are summed key by key (a source's few results: a row met again is rare within a
 * bulk group, whose roll-ups are merged before they are written).
 */
export const SENDER_DAY_UPSERT = `INSERT INTO daily_sender_stats (org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned,
    failed_delivered, first_failed_at, last_failed_at, last_begin, auth)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (org_id, day, source_ip, policy_domain) DO UPDATE SET country = COALESCE(country, excluded.country), city = COALESCE(city, excluded.city),
    messages = messages + excluded.messages, passed = passed + excluded.passed, quarantined = quarantined + excluded.quarantined, rejected = rejected + excluded.rejected,
    spf_aligned = spf_aligned + excluded.spf_aligned, dkim_aligned = dkim_aligned + excluded.dkim_aligned,
    failed_delivered = failed_delivered + excluded.failed_delivered,
    first_failed_at = MIN(COALESCE(first_failed_at, excluded.first_failed_at), COALESCE(excluded.first_failed_at, first_failed_at)),
    last_failed_at = MAX(COALESCE(last_failed_at, excluded.last_failed_at), COALESCE(excluded.last_failed_at, last_failed_at)),
    last_begin = MAX(last_begin, excluded.last_begin),
    auth = CASE WHEN auth IS NULL THEN excluded.auth WHEN excluded.auth IS NULL THEN auth
      ELSE (SELECT json_group_object(key, n) FROM (SELECT key, sum(value) AS n FROM (SELECT key, value FROM json_each(daily_sender_stats.auth) UNION ALL SELECT key, value FROM json_each(excluded.auth)) GROUP BY key)) END`;

/** Values per row of SENDER_DAY_UPSERT. */
export const SENDER_DAY_COLUMNS = 18;

export function senderDayValues(ctx: { orgId: string; domainId: string }, day: number, policyDomain: string, x: SourceRollup) {
  return [
    ctx.orgId, day, x.sourceIp, policyDomain, ctx.domainId, x.country, x.city, x.messages, x.passed, x.quarantined, x.rejected, x.spfAligned, x.dkimAligned,
    x.failedDelivered, x.firstFailedAt, x.lastFailedAt, x.lastBegin, authResultsText(x.auth, policyDomain),
  ] as const;
}

/** A merged roll-up to write: the roll-up of an organization's domain, day and reported policy domain (store.ts `DeferredRollup`). */
export interface RollupToWrite {
  ctx: { orgId: string; domainId: string };
  policyDomain: string;
  rollup: ReportRollup;
}

/**
 * The PostgreSQL upsert of the daily_sender_stats rows of merged roll-ups (inside the caller's
 * store.write): the rows of many roll-ups go in one statement (a bulk group's were a statement
 * each, a round trip and a run of the version trigger per file), a new statement once one holds
 * ROWS_PER_STATEMENT rows (a roll-up's rows are never split) or before a roll-up whose
 * organization, day and policy domain the statement already holds (an upsert may meet a row once).
 * Then raises the roll-up version of each organization written.
 */
export async function writeSenderDaysPostgres(store: StoreCore, list: readonly RollupToWrite[]): Promise<void> {
  let rows: (readonly unknown[])[] = [];
  const keys = new Set<string>();
  /** each organization written, with the oldest day written */
  const orgs = new Map<string, number>();
  const flush = async () => {
    if (!rows.length) return;
    // one JSON parameter for all the rows (src/db/json-rows.ts)
    await insertJsonRows(
      store,
      sql`INSERT INTO daily_sender_stats (org_id, day, source_ip, policy_domain, domain_id, country, city, messages, passed, quarantined, rejected, spf_aligned, dkim_aligned,
        failed_delivered, first_failed_at, last_failed_at, last_begin, auth)`,
      [],
      ["text", "integer", "text", "text", "text", "text", "text", "bigint", "bigint", "bigint", "bigint", "bigint", "bigint", "bigint", "bigint", "bigint", "bigint", "text"],
      rows,
      sql`ON CONFLICT (org_id, day, source_ip, policy_domain) DO UPDATE SET country = COALESCE(daily_sender_stats.country, excluded.country), city = COALESCE(daily_sender_stats.city, excluded.city),
        messages = daily_sender_stats.messages + excluded.messages, passed = daily_sender_stats.passed + excluded.passed,
        quarantined = daily_sender_stats.quarantined + excluded.quarantined, rejected = daily_sender_stats.rejected + excluded.rejected, spf_aligned = daily_sender_stats.spf_aligned + excluded.spf_aligned,
        dkim_aligned = daily_sender_stats.dkim_aligned + excluded.dkim_aligned, failed_delivered = daily_sender_stats.failed_delivered + excluded.failed_delivered,
        first_failed_at = LEAST(daily_sender_stats.first_failed_at, excluded.first_failed_at), last_failed_at = GREATEST(daily_sender_stats.last_failed_at, excluded.last_failed_at),
        last_begin = GREATEST(daily_sender_stats.last_begin, excluded.last_begin),
        auth = CASE WHEN daily_sender_stats.auth IS NULL THEN excluded.auth WHEN excluded.auth IS NULL THEN daily_sender_stats.auth
          ELSE (SELECT jsonb_object_agg(key, n)::text FROM (SELECT key, sum(value::bigint) AS n FROM (SELECT key, value FROM jsonb_each_text(daily_sender_stats.auth::jsonb)
            UNION ALL SELECT key, value FROM jsonb_each_text(excluded.auth::jsonb)) u GROUP BY key) m) END`,
    );
    rows = [];
    keys.clear();
  };
  for (const { ctx, policyDomain, rollup } of list) {
    if (!rollup.sources.length) continue;
    const key = `${ctx.orgId}\n${rollup.day}\n${policyDomain}`;
    if (keys.has(key) || rows.length >= ROWS_PER_STATEMENT) await flush();
    keys.add(key);
    orgs.set(ctx.orgId, Math.min(orgs.get(ctx.orgId) ?? rollup.day, rollup.day));
    for (const x of rollup.sources) rows.push(senderDayValues(ctx, rollup.day, policyDomain, x));
  }
  await flush();
  // the organizations whose sender rows changed: their kept answers go (read-cache.ts); the sums
  // of their settled days stay kept when the oldest day written is recent
  const recent = unsettledFrom();
  const written = [...orgs];
  await raiseRollupVersions(store, written.filter(([, oldest]) => oldest < recent).map(([orgId]) => orgId));
  await raiseRollupVersions(store, written.filter(([, oldest]) => oldest >= recent).map(([orgId]) => orgId), true);
}

/** The SQLite upsert of one dkim_selectors_seen row (values in the order of SelectorRow). */
export const SELECTOR_UPSERT = `INSERT INTO dkim_selectors_seen (org_id, domain_id, auth_domain, selector, last_begin, results) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (org_id, domain_id, auth_domain, selector) DO UPDATE SET last_begin = MAX(last_begin, excluded.last_begin), results = results + excluded.results`;

/** One dkim_selectors_seen row to upsert: organization, domain, signing domain, selector, latest period start, results. */
export type SelectorRow = readonly [orgId: string, domainId: string, authDomain: string, selector: string, lastBegin: number, results: number];

/** The PostgreSQL upsert of dkim_selectors_seen rows, one key each (inside the caller's store.write). */
export async function writeSelectorsPostgres(store: StoreCore, rows: readonly SelectorRow[]): Promise<void> {
  // one JSON parameter per ROWS_PER_STATEMENT rows (src/db/json-rows.ts)
  await insertRows(
    store,
    {
      table: "dkim_selectors_seen",
      columns: ["org_id", "domain_id", "auth_domain", "selector", "last_begin", "results"],
      types: ["text", "text", "text", "text", "bigint", "bigint"],
      tail: sql`ON CONFLICT (org_id, domain_id, auth_domain, selector) DO UPDATE SET last_begin = GREATEST(dkim_selectors_seen.last_begin, excluded.last_begin), results = dkim_selectors_seen.results + excluded.results`,
    },
    rows,
  );
}

/** the values of a daily_country_stats row, in COUNTRY_DAY_UPSERT's order */
export const COUNTRY_DAY_COLUMNS = 6;
/** The SQLite upsert of one daily_country_stats row (values in the order of countryValues). */
export const COUNTRY_DAY_UPSERT = `INSERT INTO daily_country_stats (org_id, day, domain_id, country, messages, passed) VALUES (?, ?, ?, ?, ?, ?)
  ON CONFLICT (org_id, day, domain_id, country) DO UPDATE SET messages = messages + excluded.messages, passed = passed + excluded.passed`;

/** A report's sources summed per country ('' for the unlocated), as daily_country_stats rows' values. */
export function countryValues(ctx: { orgId: string; domainId: string }, rollup: ReportRollup) {
  const byCountry = new Map<string, { messages: number; passed: number }>();
  for (const x of rollup.sources) {
    const key = x.country ?? "";
    const into = byCountry.get(key) ?? { messages: 0, passed: 0 };
    into.messages += x.messages;
    into.passed += x.passed;
    byCountry.set(key, into);
  }
  return [...byCountry].map(([country, c]) => [ctx.orgId, rollup.day, ctx.domainId, country, c.messages, c.passed] as const);
}

/**
 * The PostgreSQL upsert of the daily_country_stats rows of merged roll-ups (inside the caller's
 * store.write): summed per organization, day, domain and country first (two roll-ups of one
 * domain and day, for two policy domains, meet the same rows), then ROWS_PER_STATEMENT a statement.
 */
export async function writeCountryDaysPostgres(store: StoreCore, list: readonly RollupToWrite[]): Promise<void> {
  const summed = new Map<string, [string, number, string, string, number, number]>();
  for (const { ctx, rollup } of list)
    for (const [orgId, day, domainId, country, messages, passed] of countryValues(ctx, rollup)) {
      const key = `${orgId}\n${day}\n${domainId}\n${country}`;
      const into = summed.get(key);
      if (into) {
        into[4] += messages;
        into[5] += passed;
      } else summed.set(key, [orgId, day, domainId, country, messages, passed]);
    }
  // one JSON parameter per ROWS_PER_STATEMENT rows (src/db/json-rows.ts), not a parameter per value
  await insertRows(
    store,
    {
      table: "daily_country_stats",
      columns: ["org_id", "day", "domain_id", "country", "messages", "passed"],
      types: ["text", "integer", "text", "text", "bigint", "bigint"],
      tail: sql`ON CONFLICT (org_id, day, domain_id, country) DO UPDATE SET messages = daily_country_stats.messages + excluded.messages, passed = daily_country_stats.passed + excluded.passed`,
    },
    [...summed.values()],
  );
}
