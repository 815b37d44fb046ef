import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { splitTxt, startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { createResolver, parseDnsServer, QUERIES_PER_SOCKET, reverseName } from "./resolver";

const key2048 = generateKeyPairSync("rsa", { modulusLength: 2048 }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer({
    "big._domainkey.example.test": { TXT: [["v=DKIM1; k=rsa; p=", ...splitTxt(key2048)]] },
    "exists.example.test": { A: ["192.0.2.1"] },
    "records.example.test": {
      MX: [{ exchange: "MX2.Example.Test.", priority: 20 }, { exchange: "mx1.example.test", priority: 10 }],
      AAAA: ["2001:0db8:0000:0001:0000:0000:0000:0001", "2001:0:0:1:0:0:0:1"],
      TXT: ["v=spf1 -all", ["caf\u00e9 ", "au lait"]],
    },
    "alias.example.test": { CNAME: "Target.Example.Test." },
    "cached.example.test": { A: ["192.0.2.2"], ttl: 2 },
    "a.b.example.test": { TXT: ["deep"] },
    "broken.example.test": { servfail: true },
    "slow.example.test": { drop: true },
    "10.2.0.192.in-addr.arpa": { PTR: ["mail.example.test."] },
    "signed.example.test": { DNSKEY: ["mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ=="], authenticated: true, ttl: 2 },
  });
});
afterAll(() => dns.close());

const resolverFor = (opts: Parameters<typeof createResolver>[0] = {}) => createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 300, ...opts });

describe("resolver against a real DNS server", () => {
  test("a TXT record over 255 bytes (a 2048-bit DKIM key, over TCP) comes back whole, strings kept", async () => {
    const result = await resolverFor().txt("big._domainkey.example.test");
    expect(result.status).toBe("ok");
    expect(result.records[0]!.strings.length).toBeGreaterThan(1);
    expect(result.records[0]!.text).toBe(`v=DKIM1; k=rsa; p=${key2048}`);
  });

  test("MX, AAAA, TXT and CNAME answers read as the checks use them", async () => {
    const r = resolverFor();
    const mx = await r.mx("records.example.test");
    expect(mx.status).toBe("ok");
    expect(mx.records.toSorted((a, b) => a.priority - b.priority)).toEqual([
      { exchange: "mx1.example.test", priority: 10 },
      { exchange: "mx2.example.test", priority: 20 },
    ]);
    // RFC 5952: the longest run of zero groups is the one compressed, leading zeros dropped
    expect((await r.aaaa("records.example.test")).records.toSorted()).toEqual(["2001:0:0:1::1", "2001:db8:0:1::1"]);
    const txt = (await r.txt("records.example.test")).records.map((t) => t.text).toSorted();
    expect(txt).toEqual(["café au lait", "v=spf1 -all"]);
    expect((await r.cname("alias.example.test")).records).toEqual(["target.example.test"]);
  });

  test("NXDOMAIN (no such name) and NODATA (name without that record) are told apart", async () => {
    const r = resolverFor();
    expect((await r.txt("nothing.example.test")).status).toBe("nxdomain");
    expect((await r.txt("exists.example.test")).status).toBe("nodata");
    // an empty non-terminal exists too
    expect((await r.txt("b.example.test")).status).toBe("nodata");
  });

  test("SERVFAIL and a timeout are failures, with one retry", async () => {
    const r = resolverFor();
    expect((await r.txt("broken.example.test")).status).toBe("servfail");
    const before = dns.questions.filter((q) => q === "TXT slow.example.test").length;
    expect((await r.txt("slow.example.test")).status).toBe("timeout");
    expect(dns.questions.filter((q) => q === "TXT slow.example.test").length - before).toBe(2);
  });

  test("answers are cached for their TTL (capped), negative answers too; failures are not", async () => {
    let now = 1_000_000;
    const r = resolverFor({ now: () => now, maxTtl: 3600 });
    const asked = (name: string) => dns.questions.filter((q) => q.endsWith(` ${name}`)).length;
    await r.a("cached.example.test");
    await r.a("cached.example.test");
    expect(asked("cached.example.test")).toBe(1);
    now += 3000; // TTL is 2 s
    await r.a("cached.example.test");
    expect(asked("cached.example.test")).toBe(2);

    await r.txt("gone.example.test");
    await r.txt("gone.example.test");
    expect(asked("gone.example.test")).toBe(1);

    const failures = asked("broken.example.test");
    await r.txt("broken.example.test");
    expect(asked("broken.example.test")).toBeGreaterThan(failures);

    // a cache switched off asks every time; a max TTL of 0 keeps nothing
    const off = r.withPolicy({ cache: false });
    await off.a("cached.example.test");
    expect(asked("cached.example.test")).toBe(3);
  });

  test("DNSKEY answers are cached for their TTL with their AD bit; a refresh asks again; failures are not kept", async () => {
    let now = 2_000_000;
    const r = resolverFor({ now: () => now });
    const asked = (name: string) => dns.questions.filter((q) => q === `DNSKEY ${name}`).length;
    const first = await r.dnskey("signed.example.test");
    expect(first).toEqual({ status: "ok", keys: 1, authenticated: true });
    expect(await r.dnskey("Signed.Example.Test.")).toEqual(first);
    expect(asked("signed.example.test")).toBe(1);
    // no keys at a name that exists: a negative answer, kept too
    expect(await r.dnskey("exists.example.test")).toEqual({ status: "nodata", keys: 0, authenticated: false });
    await r.dnskey("exists.example.test");
    expect(asked("exists.example.test")).toBe(1);
    // "Check now" asks again, and the TTL (2 s) ends the kept answer
    await r.withPolicy({ refresh: true }).dnskey("signed.example.test");
    expect(asked("signed.example.test")).toBe(2);
    now += 3000;
    await r.dnskey("signed.example.test");
    expect(asked("signed.example.test")).toBe(3);
    // an unanswered question is asked again next time
    expect((await r.dnskey("slow.example.test")).status).toBe("timeout");
    expect((await r.dnskey("slow.example.test")).status).toBe("timeout");
    expect(asked("slow.example.test")).toBe(2);
  });

  test("identical questions at the same time share one query", async () => {
    const r = resolverFor({ cache: false });
    const before = dns.questions.filter((q) => q === "TXT a.b.example.test").length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => r.txt("a.b.example.test")));
    expect(answers.every((a) => a.records[0]?.text === "deep")).toBe(true);
    expect(dns.questions.filter((q) => q === "TXT a.b.example.test").length - before).toBe(1);
  });

  test("questions under way at once share a few UDP sockets, each answered with its own answer", async () => {
    const r = resolverFor({ cache: false, timeoutMs: 5000 });
    const portsBefore = new Set(dns.udpClientPorts);
    const ips = Array.from({ length: 600 }, (_, i) => `192.0.${2 + Math.floor(i / 250)}.${(i % 250) + 1}`);
    // 64 under way at a time, as the reverse DNS of a large report asks (reverse-dns.ts)
    const names: string[][] = [];
    let next = 0;
    const asker = async () => {
      while (next < ips.length) {
        const i = next++;
        names[i] = await r.reverse(ips[i]!);
      }
    };
    await Promise.all(Array.from({ length: 64 }, asker));
    expect(names[ips.indexOf("192.0.2.10")]).toEqual(["mail.example.test"]);
    expect(names.filter((n) => n.length > 0)).toHaveLength(1);
    const portsUsed = [...dns.udpClientPorts].filter((p) => !portsBefore.has(p)).length;
    // 600 questions, a new socket every QUERIES_PER_SOCKET (256) of them: 3, not 600
    expect(portsUsed).toBeGreaterThanOrEqual(1);
    expect(portsUsed).toBeLessThanOrEqual(Math.ceil(600 / QUERIES_PER_SOCKET));
  });

  test("a question left unanswered times out alone: those sent beside it on the same socket are answered", async () => {
    const r = resolverFor({ cache: false, retries: 0 });
    const [dropped, answered, truncated] = await Promise.all([r.a("slow.example.test"), r.a("exists.example.test"), r.txt("big._domainkey.example.test")]);
    expect(dropped.status).toBe("timeout");
    expect(answered).toMatchObject({ status: "ok", records: ["192.0.2.1"] });
    expect(truncated.records[0]?.text).toContain(key2048);
  });

  test("reverse() reads PTR names", async () => {
    expect(await resolverFor().reverse("192.0.2.10")).toEqual(["mail.example.test"]);
    expect(await resolverFor().reverse("192.0.2.11")).toEqual([]);
  });
});

test("server specs and reverse names", () => {
  expect(parseDnsServer("127.0.0.1:5353")).toEqual({ host: "127.0.0.1", port: 5353 });
  expect(parseDnsServer("dns.example")).toEqual({ host: "dns.example", port: 53 });
  expect(parseDnsServer("[::1]:53")).toEqual({ host: "::1", port: 53 });
  expect(parseDnsServer("2001:db8::1")).toEqual({ host: "2001:db8::1", port: 53 });
  expect(reverseName("192.0.2.10")).toBe("10.2.0.192.in-addr.arpa");
  expect(reverseName("2001:db8::1")).toBe(`1.0.0.0.${"0.".repeat(20)}8.b.d.0.1.0.0.2.ip6.arpa`);
});
