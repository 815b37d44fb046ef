/**
 * `npm run bench:dashboard`: how fast the dashboard and list endpoints answer at MSP scale.
 *
 * Builds a database of `--records N` aggregate records (default 10,000,000) across 100
 * organizations of 10 domains each (1,000 domains) over the last 90 UTC days — the largest
 * organization holds a tenth of them — through the project's own report writer (the same
 * code that stores an uploaded report, roll-ups included), then starts the built executable on
 * it and times every dashboard and list endpoint for the largest organization, signed in as
 * its owner. Prints a table and ends with one JSON line:
 *   {"bench":"dashboard","store":"sqlite","records":N,"endpoints":{"/api/ip-threats":{"p50":…,"p95":…,"afterChange":{"p50":…,"p95":…},"afterOlderChange":{"p50":…,"p95":…}},…}}
 * Each endpoint is timed three times: read again as it stands (answers the server keeps, such as
 * the Senders list, come from memory); with the organization's roll-up version raised before each
 * request as a report of the last two UTC days raises it (`afterChange`: every kept answer computed
 * afresh, the window reads' sums of their settled days still kept); and raised as a change of an
 * older day raises it (`afterOlderChange`: everything computed afresh).
 *
 * Options:
 *   --records N          records to generate (default 10,000,000)
 *   --store sqlite|postgres (default sqlite)
 *   --db PATH            SQLite file to build (default a temporary one, removed afterwards)
 *   --reuse              keep an already built database (--db, or --database-url) as it is
 *   --database-url URL   PostgreSQL database to build into (default: a throw-away cluster)
 *   --requests N         timed requests per endpoint (default 40, after 3 untimed)
 *   --no-build           use the executable already in $DW_DIST (or dist/) instead of building it
 *   --only TEXT          time only the endpoints whose label contains TEXT (comma-separated for several)
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { eq, sql } from "drizzle-orm";
import { openPostgresStore, openStore, type Store } from "../src/db";
import { createSession, SESSION_COOKIE } from "../src/features/auth/sessions";
import { reportWriter, type WriteContext } from "../src/features/reports/store";
import { hotPaths } from "../src/features/dashboard/hot-paths";
import { raiseRollupVersion } from "../src/features/reports/read-cache";
import { sendingServiceOf } from "../src/features/reports/senders";
import type { AggregateRecord, AggregateReport } from "../src/lib/reports/model";
import { startDnsServer } from "../tests/support/dns-server";
import { benchDatabase } from "../tests/support/postgres";

const ROOT = join(import.meta.dir, "..");
const DIST = process.env.DW_DIST ?? join(ROOT, "dist");
const EXECUTABLE = join(DIST, "dmarcwarden");

const option = (name: string): string | null => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? null) : null;
};
const flag = (name: string) => process.argv.includes(`--${name}`);
function fail(message: string): never {
  console.error(`bench:dashboard: ${message}`);
  process.exit(2);
}
const count = (name: string, fallback: number): number => {
  const value = option(name);
  if (value === null) return fallback;
  const n = Number(value.replaceAll("_", "").replaceAll(",", ""));
  if (!Number.isInteger(n) || n < 1) fail(`--${name} must be a whole number of 1 or more (got "${value}")`);
  return n;
};

const RECORDS = count("records", 10_000_000);
const REQUESTS = count("requests", 40);
const STORE = option("store") ?? "sqlite";
if (STORE !== "sqlite" && STORE !== "postgres") fail(`--store must be sqlite or postgres (got "${STORE}")`);
const DATABASE_URL = option("database-url");
const REUSE = flag("reuse");
const ONLY = option("only")?.split(",").filter(Boolean) ?? null;

const ORGS = 100;
const DOMAINS_PER_ORG = 10;
const DAYS = 90;
const RECORDS_PER_REPORT = 100;
/** reports written per transaction while building */
const REPORTS_PER_WRITE = 50;
const REPORTERS = ["google.com", "Yahoo", "Microsoft Corporation", "Mail.Ru", "Comcast", "Fastmail", "GMX", "Zoho"];
/** reverse DNS names of the organizations' own senders (named services in the Senders view) */
const SENDER_PTRS = ["mail-sor-f41.google.com", "o1.ptr1234.sendgrid.net", "a8-31.smtp-out.amazonses.com", "mail.protection.outlook.com", "mta-12.mailchimp.com", "smtp.mailgun.org"];

const DAY_S = 86_400;

/** Deterministic pseudo-random numbers (mulberry32), so every build holds the same data. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Records of organization `o`: a tenth of all for the first, the rest shared by the others. */
const recordsOf = (o: number) => (o === 0 ? Math.round(RECORDS / 10) : Math.round((RECORDS - Math.round(RECORDS / 10)) / (ORGS - 1)));
/** Distinct sending IPs an organization sees: one per 20 records, at most 50,000. */
const ipPoolOf = (o: number) => Math.max(50, Math.min(50_000, Math.round(recordsOf(o) / 20)));
/** The first 2% of an organization's IPs are its own senders (they pass), the rest mostly fail. */
const ownSenders = (pool: number) => Math.max(5, Math.round(pool * 0.02));
const ipOf = (o: number, i: number) => `${11 + (o % 200)}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

interface Built {
  orgId: string;
  userId: string;
  domainIds: string[];
}

async function openBenchStore(): Promise<{ store: Store; serveArgs: string[]; fresh: boolean; cleanup: () => Promise<void> }> {
  if (STORE === "sqlite") {
    const given = option("db");
    const dir = given ? null : mkdtempSync(join(tmpdir(), "dw-bench-dash-"));
    const path = given ?? join(dir!, "bench.db");
    const existed = existsSync(path);
    if (existed && !REUSE) fail(`${path} exists: pass --reuse to time it as it is, or remove it`);
    const store = openStore(path);
    const cleanup = async () => {
      store.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    };
    return { store, serveArgs: ["--db", path], fresh: !existed, cleanup };
  }
  const { url, stop } = await benchDatabase(DATABASE_URL);
  const store = await openPostgresStore(url);
  // PostgreSQL nodes share one key for stored mailbox passwords: a random one for this run
  const secretKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
  return { store, serveArgs: ["--database-url", url, "--secret-key", secretKey], fresh: !DATABASE_URL, cleanup: async () => (await store.close(), await stop()) };
}

/** The bench organizations as they are in the database, or null when it holds none. */
async function existing(store: Store): Promise<Built | null> {
  const { organizations, memberships, domains } = store.t;
  const [org] = await store.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, "bench-0"));
  if (!org) return null;
  const [member] = await store.db.select({ userId: memberships.userId }).from(memberships).where(eq(memberships.orgId, org.id));
  const rows = await store.db.select({ id: domains.id }).from(domains).where(eq(domains.orgId, org.id));
  return { orgId: org.id, userId: member!.userId, domainIds: rows.map((r) => r.id) };
}

/** One organization's reports over the 90 days, written through the report writer. */
async function buildOrg(store: Store, o: number, today: number): Promise<Built> {
  const { organizations, users, memberships, domains, sourceNames } = store.t;
  const [org] = await store.write((tx) => tx.insert(organizations).values({ name: `Bench ${o}`, slug: `bench-${o}` }).returning({ id: organizations.id }));
  const orgId = org!.id;
  const [user] = await store.write((tx) => tx.insert(users).values({ name: `Bench owner ${o}`, email: `owner${o}@bench.example`, passwordHash: null }).returning({ id: users.id }));
  await store.write((tx) => tx.insert(memberships).values({ orgId, userId: user!.id, role: "owner" }));
  const policies = ["none", "quarantine", "reject"];
  const names = Array.from({ length: DOMAINS_PER_ORG }, (_, d) => `d${d}.org${o}.bench.example`);
  const domainRows = await store.write((tx) =>
    tx
      .insert(domains)
      .values(names.map((name, d) => ({ orgId, name, dmarcPolicy: policies[d % 3]!, spfStatus: "valid", dkimStatus: d % 4 === 0 ? "missing" : "valid", overallStatus: d % 3 ? "protected" : "partial", createdAt: new Date((today - DAYS - 5) * DAY_S * 1000) })))
      .returning({ id: domains.id, name: domains.name }),
  );
  const rnd = random(o + 1);
  const pool = ipPoolOf(o);
  const own = ownSenders(pool);
  const total = recordsOf(o);
  const reports = Math.max(1, Math.ceil(total / RECORDS_PER_REPORT));
  const writer = reportWriter(store);
  const processedAt = new Date();
  let written = 0;
  let batch: { ctx: WriteContext; report: AggregateReport }[] = [];
  const flush = async () => {
    const items = batch;
    batch = [];
    await store.write(async () => {
      for (const item of items) await writer.writeAggregate(item.ctx, item.report);
    });
  };
  for (let r = 0; r < reports; r++) {
    const d = r % DOMAINS_PER_ORG;
    const domain = domainRows[d]!;
    const day = today - DAYS + 1 + Math.floor((r / reports) * DAYS);
    const n = Math.min(RECORDS_PER_REPORT, total - written);
    const records: AggregateRecord[] = [];
    const p = policies[d % 3]!;
    for (let k = 0; k < n; k++) {
      // a few IPs send most of the mail: the organization's own senders, then a long tail
      const ownMail = rnd() < 0.6;
      const ip = ownMail ? Math.floor(rnd() ** 2 * own) : own + Math.floor(rnd() ** 3 * (pool - own));
      const passes = ownMail ? rnd() < 0.95 : rnd() < 0.1;
      const dkim = passes ? "pass" : "fail";
      const spf = passes || rnd() < 0.3 ? "pass" : "fail";
      records.push({
        sourceIp: ipOf(o, ip),
        count: 1 + Math.floor(rnd() ** 4 * 200),
        disposition: passes || p === "none" ? "none" : p,
        dkimAligned: dkim,
        spfAligned: passes ? spf : "fail",
        reasons: [],
        headerFrom: domain.name,
        envelopeFrom: domain.name,
        envelopeTo: null,
        dkimResults: [{ domain: domain.name, selector: "s1", result: dkim, humanResult: null }],
        spfResults: [{ domain: domain.name, scope: "mfrom", result: spf, humanResult: null }],
      });
    }
    written += n;
    const report: AggregateReport = {
      kind: "aggregate", version: null, dmarcbis: false, reporterOrg: REPORTERS[r % REPORTERS.length]!, reporterEmail: "noreply@reporter.example", reporterContact: null,
      reportId: `bench-${o}-${r}`, generator: null, reporterErrors: [], dateBegin: new Date(day * DAY_S * 1000), dateEnd: new Date((day + 1) * DAY_S * 1000 - 1000),
      policy: { domain: domain.name, adkim: "r", aspf: "r", p, sp: null, np: null, pct: 100, fo: null, testing: null, discoveryMethod: null },
      records,
    };
    // reports of today arrive now, the others the day after their period
    const now = day >= today ? processedAt : new Date((day + 1) * DAY_S * 1000 + 3_600_000);
    batch.push({ ctx: { orgId, domainId: domain.id, source: "cli", fileName: `bench-${o}-${r}.xml`, now }, report });
    if (batch.length >= REPORTS_PER_WRITE) await flush();
  }
  if (batch.length) await flush();
  // the own senders have reverse DNS names (as the PTR enrichment would write them)
  await store.write(async (tx) => {
    for (let i = 0; i < own; i++) {
      const ptr = SENDER_PTRS[i % SENDER_PTRS.length]!;
      const { baseDomain, service } = sendingServiceOf(ptr);
      await tx.insert(sourceNames).values({ orgId, sourceIp: ipOf(o, i), ptr, baseDomain, service: service?.name ?? null, serviceType: service?.type ?? null }).onConflictDoNothing();
    }
    await tx.update(domains).set({ lastReportAt: processedAt }).where(eq(domains.orgId, orgId));
  });
  return { orgId, userId: user!.id, domainIds: domainRows.map((d) => d.id) };
}

async function build(store: Store): Promise<Built> {
  const today = Math.floor(Date.now() / 1000 / DAY_S);
  const start = performance.now();
  let first: Built | null = null;
  let done = 0;
  for (let o = 0; o < ORGS; o++) {
    const built = await buildOrg(store, o, today);
    first ??= built;
    done += recordsOf(o);
    if (o % 10 === 0 || o === ORGS - 1) {
      const s = (performance.now() - start) / 1000;
      console.log(`  ${String(o + 1).padStart(3)} organizations, ${done.toLocaleString("en")} records, ${s.toFixed(0)} s (${Math.round(done / s).toLocaleString("en")} records/s)`);
    }
  }
  if (store.dialect === "sqlite") store.sqlite!.run("PRAGMA optimize");
  else await store.rows(sql`ANALYZE`);
  return first!;
}

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms * 10) / 10;

async function main() {
  if (!flag("no-build") || !existsSync(EXECUTABLE)) {
    console.log(`building ${EXECUTABLE}…`);
    const res = Bun.spawnSync(["bun", join(ROOT, "scripts/build.ts")], { cwd: ROOT, env: { ...process.env, DW_DIST: DIST }, stdout: "ignore", stderr: "inherit" });
    if (res.exitCode !== 0) fail("the build failed");
  }
  const { store, serveArgs, fresh, cleanup } = await openBenchStore();
  let child: ReturnType<typeof Bun.spawn> | null = null;
  const cleanups: (() => Promise<void>)[] = [];
  try {
    let built = REUSE ? await existing(store) : null;
    if (built && !fresh) console.log("reusing the database as it is");
    else {
      if (await existing(store)) fail("the database already holds the bench organizations: pass --reuse");
      console.log(`building ${RECORDS.toLocaleString("en")} records across ${ORGS} organizations, ${ORGS * DOMAINS_PER_ORG} domains and ${DAYS} days (${STORE}) through the report writer…`);
      built = await build(store);
    }
    // records stored: the highest record id (no full count of a table of millions), and the largest organization's on its index
    const [counted] = await store.rows<{ n: number | string | null }>(sql`SELECT MAX(id) AS "n" FROM aggregate_records`);
    const records = Number(counted?.n ?? 0);
    const [inLargest] = await store.rows<{ big: number | string }>(sql`SELECT COUNT(*) AS "big" FROM aggregate_records WHERE org_id = ${built.orgId}`);
    const big = inLargest?.big ?? 0;
    const token = await createSession({ store }, built.userId, built.orgId);
    const size = STORE === "sqlite" ? statSync(serveArgs[1]!).size : null;

    const port = freePort();
    // a local DNS server with an empty zone: the domain pages' lookups answer at once (no network), and no scheduled checks run
    const dns = await startDnsServer({});
    cleanups.push(() => dns.close());
    child = Bun.spawn([EXECUTABLE, "serve", ...serveArgs, "--port", String(port), "--host", "127.0.0.1", "--log-level", "error", "--dns-server", dns.address, "--dns-check-interval", "0"], {
      stdout: "ignore",
      stderr: "inherit",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir() },
    });
    const base = `http://127.0.0.1:${port}`;
    const headers = { cookie: `${SESSION_COOKIE}=${token}` };
    for (let waited = 0; ; waited += 50) {
      if (child.exitCode !== null) fail(`the executable exited with ${child.exitCode}`);
      try {
        if ((await fetch(`${base}/healthz`)).status === 200) break;
      } catch {}
      if (waited > 60_000) fail("the executable did not answer /healthz within a minute");
      await Bun.sleep(50);
    }
    const get = async (path: string) => {
      const res = await fetch(base + path, { headers });
      const body = await res.text();
      if (res.status !== 200) fail(`${path} answered ${res.status}: ${body.slice(0, 200)}`);
      return body;
    };
    const senders = JSON.parse(await get("/api/senders")) as { key: string }[];
    const domainId = built.domainIds[0]!;
    const endpoints = hotPaths({ domainId, senderKey: senders[0]?.key ?? null }).filter((e) => !ONLY || ONLY.some((text) => e.label.includes(text)));
    console.log(`\n${records.toLocaleString("en")} records (${Number(big).toLocaleString("en")} in the largest organization)${size ? `, ${(size / 1024 / 1024).toFixed(0)} MB` : ""}; ${REQUESTS} requests per endpoint, one at a time, on ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}\n`);
    console.log(`${"".padEnd(48)} ${"as read again".padStart(26)}   ${"after new data".padStart(17)}   ${"after older data".padStart(17)}`);
    console.log(`${"endpoint".padEnd(48)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"max ms".padStart(8)}   ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}   ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}`);
    type Figures = { p50: number; p95: number };
    const results: Record<string, Figures & { afterChange: Figures; afterOlderChange: Figures }> = {};
    // the organization's roll-up version raised, as every write to what the kept reads read
    // raises it (src/features/reports/read-cache.ts): the next request computes its answer afresh
    const newData = () => store.write(() => raiseRollupVersion(store, built.orgId, true));
    const olderData = () => store.write(() => raiseRollupVersion(store, built.orgId));
    const timed = async (path: string, before?: () => Promise<void>) => {
      const times: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        if (before) await before();
        const t0 = performance.now();
        await get(path);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return { times, p50: round(percentile(times, 50)), p95: round(percentile(times, 95)) };
    };
    for (const { path, label: key } of endpoints) {
      for (let i = 0; i < 3; i++) await get(path);
      const again = await timed(path);
      const fresh = await timed(path, newData);
      const older = await timed(path, olderData);
      results[key] = { p50: again.p50, p95: again.p95, afterChange: { p50: fresh.p50, p95: fresh.p95 }, afterOlderChange: { p50: older.p50, p95: older.p95 } };
      const slow = again.p95 > 25 || fresh.p95 > 25 || older.p95 > 25 ? "  > 25 ms" : "";
      console.log(
        `${key.padEnd(48)} ${again.p50.toFixed(1).padStart(8)} ${again.p95.toFixed(1).padStart(8)} ${round(again.times.at(-1)!).toFixed(1).padStart(8)}   ${fresh.p50.toFixed(1).padStart(8)} ${fresh.p95.toFixed(1).padStart(8)}   ${older.p50.toFixed(1).padStart(8)} ${older.p95.toFixed(1).padStart(8)}${slow}`,
      );
    }
    console.log(JSON.stringify({ bench: "dashboard", store: STORE, records, endpoints: results }));
  } finally {
    if (child) {
      child.kill("SIGTERM");
      await child.exited;
    }
    for (const done of cleanups) await done();
    await cleanup();
  }
}

await main();
