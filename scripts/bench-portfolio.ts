/**
 * `npm run bench:portfolio`: how fast GET /api/portfolio answers for an MSP with many clients.
 *
 * Builds, on a temporary SQLite database, one managing organization with `--clients N` clients
 * (default 300) of 3 domains each, and for every domain a few aggregate reports ingested through
 * the project's own ingestion path (roll-ups included), plus a few alert events per client.
 * Each domain is given the statuses of a DNS check and its history row (DMARC none, quarantine,
 * reject or missing, DKIM found or not), so every client has open tasks to derive; every
 * fourth client marks a sender approved and every fifth sets a report address in its settings.
 * Clients and domains are created through the API as the MSP's owner. Then times GET
 * /api/portfolio through app.handle and prints a table line and one JSON line:
 *   {"bench":"portfolio","clients":N,"p50":…,"p95":…,"cpuMsPerRequest":…}
 * (cpuMsPerRequest: the process's CPU time over the timed requests, per request: less moved by
 * other work on the machine than the wall-clock percentiles)
 *
 * Options:
 *   --clients N    clients to build (default 300)
 *   --requests N   timed requests (default 20, after 2 untimed)
 *   --store sqlite|postgres   the store (default sqlite; postgres starts a throw-away cluster,
 *                  or uses --database-url URL, an empty database it migrates)
 *   --sqlite-file PATH   with the SQLite store: build in (or, with --reuse, time) this database
 *                  file instead of a temporary one, and keep it
 *   --reuse        with --database-url or --sqlite-file: when the database already holds a "Bench
 *                  MSP" built by an earlier run (of the same --clients), time it as it stands
 *                  instead of building (for comparing builds on the same data; the data's dates are
 *                  the earlier run's)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { strToU8 } from "fflate";
import { and, eq } from "drizzle-orm";
import { domainRecordHistory, domains, memberships, organizations, organizationSettings, orgEvents, senderMarks } from "../src/db/schema";
import { ingestFile } from "../src/features/reports/ingest";
import { reverseDnsSettled } from "../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedRecord } from "../src/lib/reports/generate";
import { openPostgresStore } from "../src/db";
import { RateLimiter } from "../src/http/rate-limit";
import { makeTestApp } from "../tests/support/app";
import { benchDatabase } from "../tests/support/postgres";
import { signIn, signedInMember } from "../tests/support/fixtures";

const option = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`bench:portfolio: --${name} must be a whole number of 1 or more`);
    process.exit(2);
  }
  return n;
};
const text = (name: string): string | null => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? null : (process.argv[i + 1] ?? null);
};
const STORE = text("store") ?? "sqlite";
if (STORE !== "sqlite" && STORE !== "postgres") {
  console.error(`bench:portfolio: --store must be sqlite or postgres (got "${STORE}")`);
  process.exit(2);
}
const CLIENTS = option("clients", 300);
const REQUESTS = option("requests", 20);
const DOMAINS_PER_CLIENT = 3;
const REPORTS_PER_DOMAIN = 3;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const dir = mkdtempSync(join(tmpdir(), "dw-bench-portfolio-"));
const SQLITE_FILE = STORE === "sqlite" ? text("sqlite-file") : null;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const pg = STORE === "postgres" ? await benchDatabase(text("database-url")) : null;
const pgStore = pg ? await openPostgresStore(pg.url) : null;
const t = await makeTestApp({
  dbPath: SQLITE_FILE ?? join(dir, "bench.db"),
  ...(pgStore ? { config: { databaseUrl: pg!.url, secretKey: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64") } } : {}),
  deps: { now: () => NOW, resolver: { reverse: async () => [] } as never, ...(pgStore ? { store: pgStore, limiter: new RateLimiter(pgStore, () => NOW) } : {}) },
});
/** The MSP an earlier run built in this database (--reuse), signed in as its owner. */
async function builtMsp(): Promise<{ userId: string; orgId: string; cookie: string } | null> {
  if (!process.argv.includes("--reuse") || (!pgStore && !SQLITE_FILE)) return null;
  const [row] = await t.deps.store.db
    .select({ orgId: organizations.id, userId: memberships.userId })
    .from(organizations)
    .innerJoin(memberships, and(eq(memberships.orgId, organizations.id), eq(memberships.role, "owner")))
    .where(eq(organizations.name, "Bench MSP"))
    .limit(1);
  return row ? { ...row, cookie: await signIn(t.deps.store, row.userId, row.orgId) } : null;
}
try {
  const reused = await builtMsp();
  const msp = reused ?? (await signedInMember(t.deps.store, "owner", "Bench MSP"));
  if (!reused) {
    // an MSP of this size is on the Scale plan (no domain limit)
    await t.deps.store.write((tx) => tx.update(organizations).set({ plan: "scale" }).where(eq(organizations.id, msp.orgId)));
    const started = performance.now();
    let seq = 0;
    for (let c = 0; c < CLIENTS; c++) {
      const res = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: `Client ${String(c).padStart(4, "0")}` } });
      if (res.status !== 201 && res.status !== 200) throw new Error(`creating client ${c}: ${res.status} ${JSON.stringify(res.body)}`);
      const clientId = res.body.id as string;
      const cookie = await signIn(t.deps.store, msp.userId, clientId);
      for (let d = 0; d < DOMAINS_PER_CLIENT; d++) {
        const domain = `d${d}.client${c}.bench.example`;
        const added = await t.json("POST", "/api/domains", { cookie, body: { name: domain } });
        if (added.status !== 201 && added.status !== 200) throw new Error(`adding ${domain}: ${added.status} ${JSON.stringify(added.body)}`);
        // as a DNS check left it, added 40 days ago (the clock of the app is the bench's start)
        const policy = (["none", "quarantine", "reject", "missing"] as const)[(c + d) % 4]!;
        const record = policy === "missing" ? null : `v=DMARC1; p=${policy}; rua=mailto:dmarc@${domain}${(c + d) % 3 ? "" : "; pct=50"}`;
        const dkim = (c + d) % 5 ? "valid" : "missing";
        const checkedAt = new Date(NOW.getTime() - (d + 1) * DAY);
        await t.deps.store.db.update(domains).set({ createdAt: new Date(NOW.getTime() - 40 * DAY), dmarcPolicy: policy, spfStatus: "valid", dkimStatus: dkim, overallStatus: policy === "reject" ? "protected" : "partial", lastCheckedAt: checkedAt }).where(eq(domains.id, added.body.id as string));
        await t.deps.store.db.insert(domainRecordHistory).values({ orgId: clientId, domainId: added.body.id as string, checkedAt, dmarcRecord: record, dmarcPolicy: policy, spfStatus: "valid", dkimStatus: dkim, overallStatus: "partial" });
        for (let r = 0; r < REPORTS_PER_DOMAIN; r++) {
          const end = new Date(NOW.getTime() - (r * 5 + 1) * DAY);
          const records: GeneratedRecord[] = [
            { sourceIp: `10.${c % 250}.${d}.1`, count: 500 + c, dkim: "pass", spf: "pass" },
            { sourceIp: `203.0.${c % 250}.${d + r}`, count: 20 + r, dkim: "fail", spf: "fail", disposition: "none" },
          ];
          const xml = aggregateXml({ orgName: "google.com", reportId: `b-${++seq}`, begin: new Date(end.getTime() - DAY), end, domain, p: "none", records });
          const result = await ingestFile(t.deps, { orgId: clientId, fileName: `b${seq}.xml`, bytes: strToU8(xml), source: "upload" });
          if (result.status !== "ingested") throw new Error(`report ${seq}: ${result.status}`);
        }
      }
      if (c % 4 === 1) await t.deps.store.db.insert(senderMarks).values({ orgId: clientId, senderKey: `ip:203.0.${c % 250}.0`, verdict: "approved", markedAt: NOW } as never);
      if (c % 5 === 2) await t.deps.store.db.insert(organizationSettings).values({ orgId: clientId, dmarcRua: `mailto:reports+${c}@msp.example` } as never);
      await t.deps.store.db.insert(orgEvents).values([
        { orgId: clientId, type: "reports.stopped", domain: `d0.client${c}.bench.example`, data: "{}", dedupeKey: `e-${++seq}`, occurredAt: new Date(NOW.getTime() - 2 * DAY) },
        { orgId: clientId, type: "reports.stopped", domain: `d1.client${c}.bench.example`, data: "{}", dedupeKey: `e-${++seq}`, occurredAt: new Date(NOW.getTime() - 12 * DAY) },
      ]);
    }
    await reverseDnsSettled();
    console.error(`built ${CLIENTS} clients × ${DOMAINS_PER_CLIENT} domains × ${REPORTS_PER_DOMAIN} reports in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } else console.error("timing the Bench MSP an earlier run built (--reuse)");

  const times: number[] = [];
  let cpuFrom: NodeJS.CpuUsage | null = null;
  for (let i = 0; i < REQUESTS + 2; i++) {
    if (i === 2) cpuFrom = process.cpuUsage();
    const at = performance.now();
    const res = await t.json("GET", "/api/portfolio", { cookie: msp.cookie });
    const ms = performance.now() - at;
    if (res.status !== 200 || res.body.clients.length !== CLIENTS) throw new Error(`GET /api/portfolio: ${res.status}, ${res.body.clients?.length} clients`);
    if (i === 0) console.error(`${res.body.clients.reduce((n: number, c: { openTasks: number }) => n + c.openTasks, 0)} open tasks across the clients`);
    if (i >= 2) times.push(ms);
  }
  const cpu = process.cpuUsage(cpuFrom!);
  const cpuMsPerRequest = Math.round(((cpu.user + cpu.system) / 1000 / REQUESTS) * 10) / 10;
  times.sort((a, b) => a - b);
  const pct = (p: number) => Math.round(times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]! * 10) / 10;
  console.log(`GET /api/portfolio  ${CLIENTS} clients (${STORE})  p50 ${pct(50)} ms  p95 ${pct(95)} ms  CPU ${cpuMsPerRequest} ms per request`);
  console.log(JSON.stringify({ bench: "portfolio", store: STORE, clients: CLIENTS, p50: pct(50), p95: pct(95), cpuMsPerRequest }));
} finally {
  await t.close();
  if (pgStore) await pgStore.close();
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
}
