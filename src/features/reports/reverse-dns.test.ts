/** The bound on reverse DNS lookups: so many under way, so many waiting, the rest not made; a report's own lookups never fill the waiting line. */
import { expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { gzipSync, strToU8 } from "fflate";
import { makeTestApp } from "../../../tests/support/app";
import { startDnsServer, type Zone } from "../../../tests/support/dns-server";
import { signedInMember } from "../../../tests/support/fixtures";
import { aggregateXml, type GeneratedRecord } from "../../lib/reports/generate";
import { LARGE_REPORT_RECORDS, largeWriteBegun, largeWritesDone } from "../../lib/memory";
import { createResolver } from "../dns/resolver";
import { MAX_IN_FLIGHT, MAX_WAITING, reverseDnsSettled } from "./reverse-dns";

test("the lookups' bound", () => {
  expect([MAX_IN_FLIGHT, MAX_WAITING]).toEqual([64, 10_000]);
});

test("a report of more addresses than may wait for a lookup has every one named, on its records and the organization's names", async () => {
  const addresses = MAX_WAITING + MAX_IN_FLIGHT + 100;
  const ipOf = (j: number) => `10.9.${(j >> 8) & 255}.${j & 255}`;
  const zone: Zone = {};
  for (let j = 0; j < addresses; j++) zone[`${j & 255}.${(j >> 8) & 255}.9.10.in-addr.arpa`] = { PTR: [`mail-${j}.outbound.example.net.`] };
  const dns = await startDnsServer(zone);
  const t = await makeTestApp();
  try {
    t.deps.resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2000, retries: 1 });
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
    const records: GeneratedRecord[] = Array.from({ length: addresses }, (_, j) => ({ sourceIp: ipOf(j), count: 1, dkim: "pass", spf: "pass" }));
    const xml = aggregateXml({ orgName: "google.com", reportId: "many-addresses", begin: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-03-01T23:59:59Z"), domain: "example.com", records });
    const form = new FormData();
    form.append("files", new File([gzipSync(strToU8(xml)) as Uint8Array<ArrayBuffer>], "many.xml.gz"));
    const res = await t.json("POST", "/api/reports/upload", { body: form, cookie });
    expect(res.body.results[0]).toMatchObject({ status: "ingested", reports: [{ recordCount: addresses }] });
    await reverseDnsSettled();
    const count = async (query: string) => Number((await store.rows<{ n: unknown }>(sql.raw(query)))[0]!.n);
    expect(await count("SELECT count(*) AS n FROM source_names")).toBe(addresses);
    expect(await count("SELECT count(*) AS n FROM aggregate_records r WHERE NOT EXISTS (SELECT 1 FROM source_names n WHERE n.org_id = r.org_id AND n.source_ip = r.source_ip)")).toBe(0);
    // each record has its own address's name
    for (const j of [0, 4_321, addresses - 1]) {
      const rows = await store.rows<{ ptr: string }>(sql`SELECT n.ptr FROM aggregate_records r JOIN source_names n ON n.org_id = r.org_id AND n.source_ip = r.source_ip WHERE r.source_ip = ${ipOf(j)}`);
      expect(rows.map((r) => r.ptr)).toEqual([`mail-${j}.outbound.example.net`]);
    }
    // and the report's detail shows each record with its address's name
    const detail = await t.json("GET", `/api/dmarc-reports/${res.body.results[0].reports[0].id}`, { cookie });
    expect(detail.body.records.length).toBeGreaterThan(0);
    for (const r of detail.body.records.slice(0, 50)) expect(r.ptr).toBe(`mail-${Number(r.sourceIp.split(".")[2]) * 256 + Number(r.sourceIp.split(".")[3])}.outbound.example.net`);
  } finally {
    await reverseDnsSettled();
    t.close();
    await dns.close();
  }
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
  const zone: Zone = {};
  for (const [ip, name] of Object.entries(names)) zone[`${ip.split(".").reverse().join(".")}.in-addr.arpa`] = { PTR: [name] };
  const dns = await startDnsServer(zone);
  const t = await makeTestApp();
  const end = largeWriteBegun();
  try {
    const resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2000, retries: 1 });
    t.deps.resolver = resolver;
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
    const upload = async (fileName: string, xml: string) => {
      const form = new FormData();
      form.append("files", new File([gzipSync(strToU8(xml)) as Uint8Array<ArrayBuffer>], fileName));
      return (await t.json("POST", "/api/reports/upload", { body: form, cookie })).body;
    };
    const count = async (query: string) => Number((await store.rows<{ n: unknown }>(sql.raw(query)))[0]!.n);
    await body({ resolver, end, upload, count });
  } finally {
    end();
    await reverseDnsSettled();
    t.close();
    await dns.close();
  }
}

test("a large report's addresses are looked up once no other large report is being written, each asked of DNS once and kept here, not in the resolver's cache", async () => {
  const addresses = 60;
  const ipOf = (j: number) => `10.8.0.${j}`;
  const names = Object.fromEntries(Array.from({ length: addresses }, (_, j) => [ipOf(j), `mail-${j}.outbound.example.org.`]));
  await whileAnotherLargeWrite(names, async ({ resolver, end, upload, count }) => {
    // large: more records than one batch (LARGE_REPORT_RECORDS), over a few addresses
    const records: GeneratedRecord[] = Array.from({ length: LARGE_REPORT_RECORDS + 500 }, (_, j) => ({ sourceIp: ipOf(j % addresses), count: 1, dkim: "pass", spf: "pass" }));
    const xml = aggregateXml({ orgName: "google.com", reportId: "waits-its-turn", begin: new Date("2026-03-02T00:00:00Z"), end: new Date("2026-03-02T23:59:59Z"), domain: "example.com", records });
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
      const xml = aggregateXml({ orgName: "google.com", reportId: `turn-${n}`, begin: new Date(`${day}T00:00:00Z`), end: new Date(`${day}T23:59:59Z`), domain: "example.com", records });
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
  const zone: Zone = {
    "1.2.0.192.in-addr.arpa": { PTR: ["mail-a.outbound.example.net."] },
    "2.2.0.192.in-addr.arpa": { PTR: ["smtp-2.mailer.example.org."] },
  };
  const dns = await startDnsServer(zone);
  const t = await makeTestApp();
  try {
    const { orgId, cookie } = await signedInMember(t.deps.store, "admin");
    const other = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values([{ orgId, name: "example.com" }, { orgId: other.orgId, name: "example.com" }]));
    const day = new Date(Date.now() - 86_400_000);
    const records: GeneratedRecord[] = ["192.0.2.1", "192.0.2.2", "192.0.2.3"].map((sourceIp, j) => ({ sourceIp, count: 30 - j, dkim: "pass", spf: "pass" }));
    const xml = aggregateXml({ orgName: "google.com", reportId: "stored-unnamed", begin: day, end: new Date(day.getTime() + 3600_000), domain: "example.com", records });
    for (const who of [cookie, other.cookie]) {
      const form = new FormData();
      form.append("files", new File([gzipSync(strToU8(xml)) as Uint8Array<ArrayBuffer>], "unnamed.xml.gz"));
      // stored with no resolver (a CLI ingest that ended before its lookups, a server that skipped them): no names
      expect((await t.json("POST", "/api/reports/upload", { body: form, cookie: who })).body.results[0].status).toBe("ingested");
    }
    await reverseDnsSettled();
    const names = async () => (await store.rows<{ org: string; ip: string; ptr: string }>(sql`SELECT org_id AS org, source_ip AS ip, ptr FROM source_names ORDER BY source_ip`));
    expect(await names()).toEqual([]);

    t.deps.resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2000, retries: 1 });
    const senders = async () => ((await t.json("GET", "/api/senders?days=7", { cookie })).body as { sender: string; kind: string }[]).map((s) => `${s.kind}:${s.sender}`).toSorted();
    // the first read lists the addresses as they are, and asks for their names
    expect(await senders()).toEqual(["ip:192.0.2.1", "ip:192.0.2.2", "ip:192.0.2.3"]);
    await reverseDnsSettled();
    expect(await names()).toEqual([
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
  } finally {
    await reverseDnsSettled();
    t.close();
    await dns.close();
  }
}, 60_000);

test("failing addresses on the threat list with no name are named once the list reads them", async () => {
  const dns = await startDnsServer({ "9.2.0.192.in-addr.arpa": { PTR: ["bulk-7.sender.example.net."] } });
  const t = await makeTestApp();
  try {
    const { orgId, cookie } = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
    const day = new Date(Date.now() - 86_400_000);
    const records: GeneratedRecord[] = [{ sourceIp: "192.0.2.9", count: 40, dkim: "fail", spf: "fail" }];
    const xml = aggregateXml({ orgName: "google.com", reportId: "failing-unnamed", begin: day, end: new Date(day.getTime() + 3600_000), domain: "example.com", records });
    const form = new FormData();
    form.append("files", new File([gzipSync(strToU8(xml)) as Uint8Array<ArrayBuffer>], "failing.xml.gz"));
    expect((await t.json("POST", "/api/reports/upload", { body: form, cookie })).body.results[0].status).toBe("ingested");
    t.deps.resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2000, retries: 1 });
    const threats = async () => ((await t.json("GET", "/api/ip-threats", { cookie })).body as { ipAddress: string; ptr: string | null }[]).map((r) => `${r.ipAddress} ${r.ptr}`);
    expect(await threats()).toEqual(["192.0.2.9 null"]);
    await reverseDnsSettled();
    expect(await threats()).toEqual(["192.0.2.9 bulk-7.sender.example.net"]);
    expect(dns.questions).toEqual(["PTR 9.2.0.192.in-addr.arpa"]);
  } finally {
    await reverseDnsSettled();
    t.close();
    await dns.close();
  }
}, 60_000);

test("a name found for an organization deleted meanwhile is dropped, and another organization's names written with it are kept", async () => {
  // answers come late enough for the organization to be deleted while its lookup is under way
  const dns = await startDnsServer({ "5.2.0.192.in-addr.arpa": { PTR: ["mx-5.example.net."] }, "6.2.0.192.in-addr.arpa": { PTR: ["mx-6.example.net."] } }, { latencyMs: 300 });
  const t = await makeTestApp();
  try {
    const kept = await signedInMember(t.deps.store, "member");
    const gone = await signedInMember(t.deps.store, "member");
    const { store } = t.deps;
    await store.write((tx) => tx.insert(store.t.domains).values([{ orgId: kept.orgId, name: "example.com" }, { orgId: gone.orgId, name: "example.com" }]));
    const day = new Date(Date.now() - 86_400_000);
    // an address of each: one lookup each (the same address would be asked once for both)
    for (const [who, sourceIp] of [[kept.cookie, "192.0.2.5"], [gone.cookie, "192.0.2.6"]] as const) {
      const xml = aggregateXml({ orgName: "google.com", reportId: "named-late", begin: day, end: new Date(day.getTime() + 3600_000), domain: "example.com", records: [{ sourceIp, count: 3, dkim: "pass", spf: "pass" }] });
      const form = new FormData();
      form.append("files", new File([gzipSync(strToU8(xml)) as Uint8Array<ArrayBuffer>], "late.xml.gz"));
      expect((await t.json("POST", "/api/reports/upload", { body: form, cookie: who })).body.results[0].status).toBe("ingested");
    }
    t.deps.resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2000, retries: 1, cache: false });
    for (const who of [kept.cookie, gone.cookie]) expect((await t.json("GET", "/api/senders?days=7", { cookie: who })).status).toBe(200);
    await store.write((tx) => tx.delete(store.t.organizations).where(eq(store.t.organizations.id, gone.orgId)));
    await reverseDnsSettled();
    expect(dns.questions.toSorted()).toEqual(["PTR 5.2.0.192.in-addr.arpa", "PTR 6.2.0.192.in-addr.arpa"]);
    expect(await store.rows<{ org: string; ptr: string }>(sql`SELECT org_id AS org, ptr FROM source_names`)).toEqual([{ org: kept.orgId, ptr: "mx-5.example.net" }]);
  } finally {
    await reverseDnsSettled();
    t.close();
    await dns.close();
  }
}, 60_000);
