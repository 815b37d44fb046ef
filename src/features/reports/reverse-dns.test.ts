/** The bound on reverse DNS lookups: so many under way, so many waiting, the rest not made; a report's own lookups never fill the waiting line. */
import { expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { gzipSync, strToU8 } from "fflate";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { startDnsServer, type TestDnsServer, type Zone } from "../../../tests/support/dns-server";
import { signedInMember } from "../../../tests/support/fixtures";
import { aggregateXml, type GeneratedRecord } from "../../lib/reports/generate";
import { LARGE_REPORT_RECORDS, largeWriteBegun, largeWritesDone } from "../../lib/memory";
import { createResolver } from "../dns/resolver";
import { MAX_IN_FLIGHT, MAX_WAITING, reverseDnsSettled } from "./reverse-dns";

test("the lookups' bound", () => {
  expect([MAX_IN_FLIGHT, MAX_WAITING]).toEqual([64, 10_000]);
});

/**
 * A test app and a local DNS server answering `zone`, both closed (and every lookup settled) when
 * `body` ends. `resolve()` points the app's resolver at that server; `upload` sends one gzipped
 * report through POST /api/reports/upload and answers the response's body; `count` reads one number.
 */
async function withDns(
  zone: Zone,
  body: (h: {
    t: TestApp;
    dns: TestDnsServer;
    resolve: (options?: { cache?: boolean }) => ReturnType<typeof createResolver>;
    upload: (cookie: string, fileName: string, xml: string) => Promise<any>;
    count: (query: string) => Promise<number>;
  }) => Promise<void>,
  dnsOptions: { latencyMs?: number } = {},
): Promise<void> {
  const dns = await startDnsServer(zone, dnsOptions);
  const t = await makeTestApp();
  try {
    const resolve = (options: { cache?: boolean } = {}) =>
      (t.deps.resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2000, retries: 1, ...options }));
    const upload = async (cookie: string, fileName: string, xml: string) => {
      const form = new FormData();
      form.append("files", new File([gzipSync(strToU8(xml)) as Uint8Array<ArrayBuffer>], fileName));
      return (await t.json("POST", "/api/reports/upload", { body: form, cookie })).body;
    };
    const count = async (query: string) => Number((await t.deps.store.rows<{ n: unknown }>(sql.raw(query)))[0]!.n);
    await body({ t, dns, resolve, upload, count });
  } finally {
    await reverseDnsSettled();
    t.close();
    await dns.close();
  }
}

/** The PTR zone answering each address of `names` with its name. */
function ptrZone(names: Record<string, string>): Zone {
  return Object.fromEntries(Object.entries(names).map(([ip, name]) => [`${ip.split(".").reverse().join(".")}.in-addr.arpa`, { PTR: [name] }]));
}

/** A report of `records` for example.com from google.com, over `hours` from `begin` (a day by default). */
function report(reportId: string, begin: Date, records: GeneratedRecord[], hours = 24): string {
  return aggregateXml({ orgName: "google.com", reportId, begin, end: new Date(begin.getTime() + hours * 3600_000 - 1000), domain: "example.com", records });
}

const yesterday = () => new Date(Date.now() - 86_400_000);

test("a report of more addresses than may wait for a lookup has every one named, on its records and the organization's names", async () => {
  const addresses = MAX_WAITING + MAX_IN_FLIGHT + 100;
  const ipOf = (j: number) => `10.9.${(j >> 8) & 255}.${j & 255}`;
  const names = Object.fromEntries(Array.from({ length: addresses }, (_, j) => [ipOf(j), `mail-${j}.outbound.example.net.`]));
  await withDns(ptrZone(names), async ({ t, resolve, upload, count }) => {
    resolve();
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
    const records: GeneratedRecord[] = Array.from({ length: addresses }, (_, j) => ({ sourceIp: ipOf(j), count: 1, dkim: "pass", spf: "pass" }));
    const res = await upload(cookie, "many.xml.gz", report("many-addresses", new Date("2026-03-01T00:00:00Z"), records));
    expect(res.results[0]).toMatchObject({ status: "ingested", reports: [{ recordCount: addresses }] });
    await reverseDnsSettled();
    expect(await count("SELECT count(*) AS n FROM source_names")).toBe(addresses);
    expect(await count("SELECT count(*) AS n FROM aggregate_records r WHERE NOT EXISTS (SELECT 1 FROM source_names n WHERE n.org_id = r.org_id AND n.source_ip = r.source_ip)")).toBe(0);
    // each record has its own address's name
    for (const j of [0, 4_321, addresses - 1]) {
      const rows = await store.rows<{ ptr: string }>(sql`SELECT n.ptr FROM aggregate_records r JOIN source_names n ON n.org_id = r.org_id AND n.source_ip = r.source_ip WHERE r.source_ip = ${ipOf(j)}`);
      expect(rows.map((r) => r.ptr)).toEqual([`mail-${j}.outbound.example.net`]);
    }
    // and the report's detail shows each record with its address's name
    const detail = await t.json("GET", `/api/dmarc-reports/${res.results[0].reports[0].id}`, { cookie });
    expect(detail.body.records.length).toBeGreaterThan(0);
    for (const r of detail.body.records.slice(0, 50)) expect(r.ptr).toBe(`mail-${Number(r.sourceIp.split(".")[2]) * 256 + Number(r.sourceIp.split(".")[3])}.outbound.example.net`);
  });
}, 120_000);

/**
 * A test app whose resolver asks a local DNS server answering each address of `names` with its PTR
 * name, a member's organization with example.com, and another large report's write under way
 * until `end` (called again after `body`, which changes nothing if it already was).
 */
async function whileAnotherLargeWrite(
  names: Record<string, string>,
  body: (w: { resolver: ReturnType<typeof createResolver>; end: () => void; upload: (fileName: string, xml: string) => Promise<any>; count: (query: string) => Promise<number> }) => Promise<void>,
): Promise<void> {
  await withDns(ptrZone(names), async ({ t, resolve, upload, count }) => {
    const end = largeWriteBegun();
    try {
      const resolver = resolve();
      const { orgId, cookie } = await signedInMember(t.deps.store, "member");
      const { store } = t.deps;
      await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
      await body({ resolver, end, upload: (fileName, xml) => upload(cookie, fileName, xml), count });
    } finally {
      end();
    }
  });
}

test("a large report's addresses are looked up once no other large report is being written, each asked of DNS once and kept here, not in the resolver's cache", async () => {
  const addresses = 60;
  const ipOf = (j: number) => `10.8.0.${j}`;
  const names = Object.fromEntries(Array.from({ length: addresses }, (_, j) => [ipOf(j), `mail-${j}.outbound.example.org.`]));
  await whileAnotherLargeWrite(names, async ({ resolver, end, upload, count }) => {
    // large: more records than one batch (LARGE_REPORT_RECORDS), over a few addresses
    const records: GeneratedRecord[] = Array.from({ length: LARGE_REPORT_RECORDS + 500 }, (_, j) => ({ sourceIp: ipOf(j % addresses), count: 1, dkim: "pass", spf: "pass" }));
    const xml = report("waits-its-turn", new Date("2026-03-02T00:00:00Z"), records);
    expect((await upload("large.xml.gz", xml)).results[0]).toMatchObject({ status: "ingested", reports: [{ recordCount: records.length }] });
    // while the other write is under way nothing is asked
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 10));
    expect(resolver.queryCount).toBe(0);
    expect(await count("SELECT count(*) AS n FROM source_names")).toBe(0);
    end();
    end(); // a second call changes nothing
    await reverseDnsSettled();
    expect(await count("SELECT count(*) AS n FROM source_names")).toBe(addresses);
    expect(await count("SELECT count(*) AS n FROM aggregate_records r WHERE NOT EXISTS (SELECT 1 FROM source_names n WHERE n.org_id = r.org_id AND n.source_ip = r.source_ip)")).toBe(0);
    expect(resolver.queryCount).toBe(addresses);
    // the enrichment kept its answers itself: the resolver asks DNS again for one of them
    expect(await resolver.reverse(ipOf(7))).toEqual(["mail-7.outbound.example.org"]);
    expect(resolver.queryCount).toBe(addresses + 1);
    expect(largeWritesDone()).toBeNull();
  });
}, 120_000);

test("large reports uploaded while another large report is being written are named only once it ends, all of them, each address asked of DNS once", async () => {
  const addresses = 40;
  const names = Object.fromEntries(Array.from({ length: addresses }, (_, j) => [`10.7.0.${j}`, `relay-${j}.example.net.`]));
  await whileAnotherLargeWrite(names, async ({ resolver, end, upload, count }) => {
    for (const [n, day] of [[1, "2026-03-03"], [2, "2026-03-04"], [3, "2026-03-05"]] as const) {
      const records: GeneratedRecord[] = Array.from({ length: LARGE_REPORT_RECORDS + 100 }, (_, j) => ({ sourceIp: `10.7.0.${j % addresses}`, count: 1, dkim: "pass", spf: "fail" }));
      const xml = report(`turn-${n}`, new Date(`${day}T00:00:00Z`), records);
      expect((await upload(`turn-${n}.xml.gz`, xml)).results[0]).toMatchObject({ status: "ingested" });
    }
    expect(await count("SELECT count(*) AS n FROM source_names")).toBe(0);
    end();
    await reverseDnsSettled();
    expect(await count("SELECT count(DISTINCT report_seq) AS n FROM aggregate_records")).toBe(3);
    expect(await count("SELECT count(*) AS n FROM aggregate_records r WHERE NOT EXISTS (SELECT 1 FROM source_names n WHERE n.org_id = r.org_id AND n.source_ip = r.source_ip)")).toBe(0);
    // each address asked of DNS once: the later reports' lookups found the first one's answers
    expect(resolver.queryCount).toBe(addresses);
  });
}, 120_000);

test("addresses stored with no name are named once the senders list reads them: each asked of DNS once, the list read again shows their senders, another organization's names untouched", async () => {
  const names = { "192.0.2.1": "mail-a.outbound.example.net.", "192.0.2.2": "smtp-2.mailer.example.org." };
  await withDns(ptrZone(names), async ({ t, dns, resolve, upload }) => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "admin");
    const other = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values([{ orgId, name: "example.com" }, { orgId: other.orgId, name: "example.com" }]));
    const records: GeneratedRecord[] = ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((sourceIp, j) => ({ sourceIp, count: 30 - j, dkim: "pass", spf: "pass" }));
    const xml = report("stored-unnamed", yesterday(), records, 1);
    // stored with no resolver (a CLI ingest that ended before its lookups, a server that skipped them): no names
    for (const who of [cookie, other.cookie]) expect((await upload(who, "unnamed.xml.gz", xml)).results[0].status).toBe("ingested");
    await reverseDnsSettled();
    const named = async () => (await store.rows<{ org: string; ip: string; ptr: string }>(sql`SELECT org_id AS org, source_ip AS ip, ptr FROM source_names ORDER BY source_ip`));
    expect(await named()).toEqual([]);

    resolve();
    const senders = async () => ((await t.json("GET", "/api/senders?days=7", { cookie })).body as { sender: string; kind: string }[]).map((s) => `${s.kind}:${s.sender}`).toSorted();
    // the first read lists the addresses as they are, and asks for their names
    expect(await senders()).toEqual(["ip:192.0.2.1", "ip:192.0.2.2", "ip:192.0.2.3"]);
    await reverseDnsSettled();
    expect(await named()).toEqual([
      { org: orgId, ip: "192.0.2.1", ptr: "mail-a.outbound.example.net" },
      { org: orgId, ip: "192.0.2.2", ptr: "smtp-2.mailer.example.org" },
    ]);
    expect(await senders()).toEqual(["domain:example.net", "domain:example.org", "ip:192.0.2.3"]);
    // read again (the address without a name included): nothing is asked again
    const asked = dns.questions.length;
    expect(asked).toBe(3);
    // a mark makes the list be read anew (its kept answer no longer holds)
    expect((await t.json("PUT", `/api/senders/${encodeURIComponent("ip:192.0.2.3")}/mark`, { body: { verdict: "approved" }, cookie })).status).toBe(200);
    await senders();
    await reverseDnsSettled();
    expect(dns.questions.length).toBe(asked);
  });
}, 60_000);

test("failing addresses on the threat list with no name are named once the list reads them", async () => {
  await withDns(ptrZone({ "192.0.2.9": "bulk-7.sender.example.net." }), async ({ t, dns, resolve, upload }) => {
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
    const xml = report("failing-unnamed", yesterday(), [{ sourceIp: "192.0.2.9", count: 40, dkim: "fail", spf: "fail" }], 1);
    expect((await upload(cookie, "failing.xml.gz", xml)).results[0].status).toBe("ingested");
    resolve();
    const threats = async () => ((await t.json("GET", "/api/ip-threats", { cookie })).body as { ipAddress: string; ptr: string | null }[]).map((r) => `${r.ipAddress} ${r.ptr}`);
    expect(await threats()).toEqual(["192.0.2.9 null"]);
    await reverseDnsSettled();
    expect(await threats()).toEqual(["192.0.2.9 bulk-7.sender.example.net"]);
    expect(dns.questions).toEqual(["PTR 9.2.0.192.in-addr.arpa"]);
  });
}, 60_000);

test("a name found for an organization deleted meanwhile is dropped, and another organization's names written with it are kept", async () => {
  // answers come late enough for the organization to be deleted while its lookup is under way
  const names = { "192.0.2.5": "mx-5.example.net.", "192.0.2.6": "mx-6.example.net." };
  await withDns(ptrZone(names), async ({ t, dns, resolve, upload }) => {
    const kept = await signedInMember(t.deps.store, "member");
    const gone = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values([{ orgId: kept.orgId, name: "example.com" }, { orgId: gone.orgId, name: "example.com" }]));
    // an address of each: one lookup each (the same address would be asked once for both)
    for (const [who, sourceIp] of [[kept.cookie, "192.0.2.5"], [gone.cookie, "192.0.2.6"]] as const) {
      expect((await upload(who, "late.xml.gz", report("named-late", yesterday(), [{ sourceIp, count: 3, dkim: "pass", spf: "pass" }], 1))).results[0].status).toBe("ingested");
    }
    resolve({ cache: false });
    for (const who of [kept.cookie, gone.cookie]) expect((await t.json("GET", "/api/senders?days=7", { cookie: who })).status).toBe(200);
    await store.write((tx) => tx.delete(store.t.organizations).where(eq(store.t.organizations.id, gone.orgId)));
    await reverseDnsSettled();
    expect(dns.questions.toSorted()).toEqual(["PTR 5.2.0.192.in-addr.arpa", "PTR 6.2.0.192.in-addr.arpa"]);
    expect(await store.rows<{ org: string; ptr: string }>(sql`SELECT org_id AS org, ptr FROM source_names`)).toEqual([{ org: kept.orgId, ptr: "mx-5.example.net" }]);
  }, { latencyMs: 300 });
}, 60_000);
