/**
 * Two `serve` processes of the built executable on one PostgreSQL database, as behind a load
 * balancer: they start together and migrate once; a session made on one works on the other;
 * the same report files uploaded through both are stored once; a domain's scheduled DNS check
 * runs on one node only, however both wake at once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { gzipSync } from "fflate";
import { PG_MIGRATIONS } from "../../src/db/migrations-pg.gen";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { postgresMissing, startPostgres, type PostgresCluster } from "../support/postgres";
import { sampleAggregate, xmlBytes } from "../support/report-fixtures";
import { ensureExecutable, startServer, type RunningServer } from "../support/server";

if (postgresMissing) console.log(`two-node test skipped: ${postgresMissing}`);

let pg: PostgresCluster;
let dns: TestDnsServer;
let url = "";
const secretKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
let nodes: RunningServer[] = [];

const startNodes = () =>
  Promise.all([0, 1].map(() => startServer({ args: ["--database-url", url, "--secret-key", secretKey, "--dns-server", dns.address, "--dns-check-interval", "60"] })));
const stopNodes = async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  nodes = [];
};

/** Polls (bounded) until `done` holds; returns whether it did. */
async function eventually(done: () => boolean, attempts = 300): Promise<boolean> {
  for (let i = 0; i < attempts; i++) {
    if (done()) return true;
    await Bun.sleep(100);
  }
  return done();
}

const logLines = (node: RunningServer, event: string) =>
  node
    .output()
    .split("\n")
    .filter((l) => l.includes(`"event":"${event}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  if (postgresMissing) return;
  await ensureExecutable();
  [pg, dns] = await Promise.all([startPostgres(), startDnsServer(fixtureZone())]);
  url = await pg.createDatabase();
}, 120_000);

afterAll(async () => {
  await stopNodes();
  await dns?.close();
  await pg?.stop();
});

test.skipIf(!!postgresMissing)("two nodes on one PostgreSQL: one migration, shared sessions, uploads stored once, a scheduled check run once", async () => {
  // both start at the same moment: the advisory lock lets one migrate, the other finds it done
  nodes = await startNodes();
  const [a, b] = nodes as [RunningServer, RunningServer];
  const sql = new SQL(url);
  try {
    const tags = (await sql`SELECT tag FROM schema_migrations ORDER BY tag`).map((r: { tag: string }) => r.tag);
    expect(tags).toEqual(PG_MIGRATIONS.map((m) => m.tag).sort());

    // a session made on node A works on node B
    const signup = await fetch(`${a.url}/api/auth/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: a.url },
      body: JSON.stringify({ name: "Node Tester", email: "nodes@example.com", password: "a-long-and-unusual-passphrase-7", organization: "Two Nodes Ltd" }),
    });
    expect(signup.status).toBeLessThan(300);
    const cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const me = await fetch(`${b.url}/api/auth/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: { email: string } }).user.email).toBe("nodes@example.com");

    // a domain added on B; the same six report files uploaded through both nodes at once
    const added = await fetch(`${b.url}/api/domains`, { method: "POST", headers: { "content-type": "application/json", origin: b.url, cookie }, body: JSON.stringify({ name: "good.test" }) });
    expect(added.status).toBe(201);
    const files = Array.from({ length: 6 }, (_, i) => ({ name: `report-${i}.xml.gz`, bytes: gzipSync(xmlBytes(sampleAggregate("good.test", { reportId: `two-nodes-${i}` }))) }));
    const upload = async (node: RunningServer) => {
      const form = new FormData();
      for (const f of files) form.append("files", new File([f.bytes], f.name));
      const res = await fetch(`${node.url}/api/reports/upload`, { method: "POST", headers: { origin: node.url, cookie }, body: form });
      expect(res.status).toBeLessThan(300);
      return ((await res.json()) as { results: { status: string }[] }).results.map((r) => r.status);
    };
    const statuses = (await Promise.all([upload(a), upload(b)])).flat();
    expect(statuses.filter((s) => s === "rejected")).toEqual([]);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM aggregate_reports`;
    expect(n).toBe(6);
    const listed = await fetch(`${a.url}/api/dmarc-reports?limit=50`, { headers: { cookie } });
    expect(((await listed.json()) as unknown[]).length).toBe(6);

    // a domain nobody has checked yet, then both nodes restart together: their schedulers wake
    // at the same moment and both find it due; the lease lets one of them check it
    const [{ org_id: orgId }] = await sql`SELECT org_id FROM domains WHERE name = 'good.test'`;
    await stopNodes();
    await sql`INSERT INTO domains (id, org_id, name, overall_status, created_at) VALUES (${crypto.randomUUID()}, ${orgId}, 'quarantine.test', 'pending', ${Math.floor(Date.now() / 1000)})`;
    // slow DNS answers: one node's check is still running when the other's round looks for due domains
    dns.latencyMs = 1500;
    nodes = await startNodes();
    const bothRan = await eventually(() => nodes.every((node) => logLines(node, "dns_checks_done").length > 0));
    if (!bothRan) for (const node of nodes) console.log(node.output().slice(-2500));
    expect(bothRan).toBe(true);
    const checks = nodes.flatMap((node) => logLines(node, "dns_checked")).filter((l) => l.domain === "quarantine.test");
    expect(checks).toHaveLength(1);
    const [{ checked }] = await sql`SELECT count(*)::int AS checked FROM domains WHERE name = 'quarantine.test' AND last_checked_at IS NOT NULL`;
    expect(checked).toBe(1);

    // sessions live in the database: the cookie still works on both restarted nodes
    for (const node of nodes) expect((await fetch(`${node.url}/api/auth/me`, { headers: { cookie } })).status).toBe(200);
  } finally {
    await sql.close();
  }
}, 180_000);
