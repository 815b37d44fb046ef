/**
 * A real authoritative-style DNS server on 127.0.0.1 (UDP + TCP, random port) answering from
 * fixture zones, for tests, the e2e run and `npm run bench:dns`. Answers over 512 bytes come
 * back truncated over UDP, so clients must fall back to TCP, as with real servers.
 *
 * Names absent from the zone answer NXDOMAIN; names that exist (or have names below them)
 * without the asked type answer NODATA; `servfail` and `drop` entries fail on purpose.
 * An optional latency delays every answer, to stand for the network.
 */
import { generateKeyPairSync } from "node:crypto";
import DNS from "dns2";

// dns2's type declarations lag its runtime (RCODE, loose resources): use it untyped here
const Packet: any = DNS.Packet;

export interface ZoneEntry {
  TXT?: (string | string[])[];
  A?: string[];
  AAAA?: string[];
  MX?: { exchange: string; priority: number }[];
  PTR?: string[];
  CNAME?: string;
  /** DNSKEY records (base64 public keys): the name is a signed zone apex */
  DNSKEY?: string[];
  /** answer with the AD bit when the question asks for it, as a validating resolver does for a signed zone */
  authenticated?: boolean;
  ttl?: number;
  /** answer SERVFAIL */
  servfail?: boolean;
  /** never answer (the client times out) */
  drop?: boolean;
  /**
   * Later answers to A and AAAA questions, in turn: the first question of a type is answered
   * from the entry itself, the second from `then[0]`, and so on (the last repeats). With `ttl: 0`
   * this is a name that rebinds, answering one address to a check and another to a connection.
   */
  then?: Pick<ZoneEntry, "A" | "AAAA">[];
}
export type Zone = Record<string, ZoneEntry>;

export interface TestDnsServer {
  host: string;
  port: number;
  /** "127.0.0.1:PORT", ready for --dns-server */
  address: string;
  zone: Zone;
  latencyMs: number;
  /** questions received, "TYPE name" */
  questions: string[];
  /** the source ports questions came from over UDP (how many sockets a client asked from) */
  udpClientPorts: Set<number>;
  close(): Promise<void>;
}

/** Splits a long TXT value into 255-byte character-strings, as zone files do. */
export function splitTxt(value: string, size = 255): string[] {
  const parts: string[] = [];
  for (let i = 0; i < value.length; i += size) parts.push(value.slice(i, i + size));
  return parts.length ? parts : [""];
}

const SOA = { primary: "ns.fixture.test", admin: "hostmaster.fixture.test", serial: 1, refresh: 3600, retry: 600, expiration: 86400, minimum: 60 };

function typeName(code: number): string {
  return Object.entries(Packet.TYPE).find(([, v]) => v === code)?.[0] ?? String(code);
}

function answer(zone: Zone, request: any, asked: Map<string, number>): any | null {
  const response = Packet.createResponseFromRequest(request);
  response.header.aa = 1;
  response.header.ra = 1;
  const question = request.questions[0];
  if (!question) return response;
  const qtype = typeName(question.type);
  let name = String(question.name).toLowerCase().replace(/\.$/, "");
  let entry = lookupName(zone, name);
  if (entry?.drop) return null;
  if (entry?.servfail) {
    response.header.rcode = Packet.RCODE.SERVFAIL;
    return response;
  }
  // follow CNAMEs inside the zone, as a recursive resolver would
  for (let hops = 0; entry?.CNAME && qtype !== "CNAME" && hops < 8; hops++) {
    response.answers.push({ name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: entry.ttl ?? 300, domain: entry.CNAME });
    name = entry.CNAME.toLowerCase();
    entry = lookupName(zone, name);
  }
  if (!entry) {
    if (!response.answers.length && !hasDescendant(zone, name)) response.header.rcode = Packet.RCODE.NXDOMAIN;
    response.authorities.push({ name: "test", type: Packet.TYPE.SOA, class: Packet.CLASS.IN, ttl: 60, ...SOA });
    return response;
  }
  const ttl = entry.ttl ?? 300;
  const base = { name, class: Packet.CLASS.IN, ttl };
  if (entry.authenticated && request.header.ad) response.header.ad = 1;
  let values = (entry as any)[qtype] as unknown[] | string | undefined;
  if (entry.then?.length && (qtype === "A" || qtype === "AAAA")) {
    const key = `${qtype} ${name}`;
    const turn = asked.get(key) ?? 0;
    asked.set(key, turn + 1);
    if (turn > 0) values = entry.then[Math.min(turn, entry.then.length) - 1]![qtype];
  }
  if (qtype === "CNAME" && entry.CNAME) response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain: entry.CNAME });
  else if (Array.isArray(values) && values.length) {
    for (const v of values) {
      switch (qtype) {
        case "TXT":
          response.answers.push({ ...base, type: Packet.TYPE.TXT, data: Array.isArray(v) ? v : splitTxt(String(v)) });
          break;
        case "MX":
          response.answers.push({ ...base, type: Packet.TYPE.MX, ...(v as object) });
          break;
        case "PTR":
          response.answers.push({ ...base, type: Packet.TYPE.PTR, domain: v });
          break;
        case "DNSKEY":
          response.answers.push({ ...base, type: Packet.TYPE.DNSKEY, flags: 257, protocol: 3, algorithm: 13, key: v });
          break;
        default:
          response.answers.push({ ...base, type: Packet.TYPE[qtype], address: v });
      }
    }
  }
  if (!response.answers.length) response.authorities.push({ name: "test", type: Packet.TYPE.SOA, class: Packet.CLASS.IN, ttl: 60, ...SOA });
  return response;
}

function lookupName(zone: Zone, name: string): ZoneEntry | undefined {
  if (zone[name]) return zone[name];
  // wildcard: *.parent answers for names that do not exist below parent
  const labels = name.split(".");
  for (let i = 1; i < labels.length; i++) {
    const wild = zone[`*.${labels.slice(i).join(".")}`];
    if (wild && !hasDescendant(zone, name)) return wild;
  }
  return undefined;
}

function hasDescendant(zone: Zone, name: string): boolean {
  const suffix = `.${name}`;
  return Object.keys(zone).some((k) => k.endsWith(suffix));
}

export async function startDnsServer(zone: Zone, options: { latencyMs?: number } = {}): Promise<TestDnsServer> {
  const questions: string[] = [];
  const asked = new Map<string, number>();
  const udpClientPorts = new Set<number>();
  const state = { latencyMs: options.latencyMs ?? 0 };
  // UDP and TCP on the same port: pick a random port, retry on a clash.
  for (let attempt = 0; ; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 40000);
    const server = DNS.createServer({
      udp: true,
      tcp: true,
      handle(request: any, send: (r: any) => void, client: object | undefined) {
        const q = request.questions[0];
        // dns2 hands UDP clients' address info (a port), TCP clients' sockets (a remotePort)
        const port = (client as { port?: unknown } | undefined)?.port;
        if (typeof port === "number") udpClientPorts.add(port);
        if (q) questions.push(`${typeName(q.type)} ${String(q.name).toLowerCase()}`);
        const response = answer(zone, request, asked);
        if (!response) return;
        // a client that closed its socket before the answer must not bring the server down
        const reply = () => {
          try {
            send(response);
          } catch {}
        };
        if (state.latencyMs > 0) setTimeout(reply, state.latencyMs);
        else reply();
      },
    });
    server.on("requestError", () => {});
    const ok = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen({ udp: { port, address: "127.0.0.1" }, tcp: { port, address: "127.0.0.1" } }).then(() => resolve(true));
    });
    if (!ok) {
      try {
        server.close();
      } catch {}
      if (attempt > 20) throw new Error("could not bind the test DNS server");
      continue;
    }
    server.on("error", () => {});
    return {
      host: "127.0.0.1",
      port,
      address: `127.0.0.1:${port}`,
      zone,
      get latencyMs() {
        return state.latencyMs;
      },
      set latencyMs(v: number) {
        state.latencyMs = v;
      },
      questions,
      udpClientPorts,
      close: async () => {
        await server.close();
      },
    };
  }
}

/** Base64 of a public key as DKIM publishes it (SubjectPublicKeyInfo DER for RSA; the raw 32 bytes for ed25519, RFC 8463). */
export function dkimPublicKey(kind: "rsa" | "ed25519", bits = 2048): string {
  if (kind === "ed25519") {
    const der = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "der" });
    return der.subarray(der.length - 32).toString("base64");
  }
  return generateKeyPairSync("rsa", { modulusLength: bits }).publicKey.export({ type: "spki", format: "der" }).toString("base64");
}

/**
 * The project's fixture zones: one domain per rule the checks enforce. Keys are generated
 * on each call (a 2048-bit key split into 255-byte strings exercises TCP fallback).
 */
export function fixtureZone(): Zone {
  const rsa2048 = dkimPublicKey("rsa", 2048);
  const rsa512 = dkimPublicKey("rsa", 512);
  const rsa1024 = dkimPublicKey("rsa", 1024);
  const ed = dkimPublicKey("ed25519");
  const zone: Zone = {
    // a well-configured domain: protected
    "good.test": {
      TXT: ["v=spf1 include:_spf.provider.test ip4:192.0.2.0/24 -all", "google-site-verification=abc123"],
      MX: [{ exchange: "mx1.good.test", priority: 10 }],
      A: ["192.0.2.10"],
    },
    "mx1.good.test": { A: ["192.0.2.25"] },
    "_dmarc.good.test": { TXT: ["v=DMARC1; p=reject; rua=mailto:dmarc@good.test; adkim=s; aspf=r"] },
    "selector1._domainkey.good.test": { TXT: [["v=DKIM1; k=rsa; p=", ...splitTxt(rsa2048)]] },
    "_mta-sts.good.test": { TXT: ["v=STSv1; id=20240101T000000"] },
    "_smtp._tls.good.test": { TXT: ["v=TLSRPTv1; rua=mailto:tls@good.test"] },
    "default._bimi.good.test": { TXT: ["v=BIMI1; l=https://good.test/logo.svg; a="] },
    "_spf.provider.test": { TXT: ["v=spf1 ip4:198.51.100.0/24 ip6:2001:db8::/32 ~all"] },

    // DMARC quarantine, SPF valid, DKIM 1024-bit (valid with a note): partial
    "quarantine.test": { TXT: ["v=spf1 ip4:192.0.2.1 -all"], MX: [{ exchange: "mx1.good.test", priority: 10 }] },
    "_dmarc.quarantine.test": { TXT: ["v=DMARC1; p=quarantine; pct=50"] },
    "google._domainkey.quarantine.test": { TXT: [`v=DKIM1; k=rsa; p=${rsa1024}`] },

    // p=none, no DKIM: vulnerable
    "nopolicy.test": { TXT: ["v=spf1 ip4:192.0.2.1 ~all"] },
    "_dmarc.nopolicy.test": { TXT: ["v=DMARC1; p=none"] },

    // nothing published at all (the name exists: it has an address)
    "missing.test": { A: ["192.0.2.99"] },

    // SPF: a chain of nested includes one lookup past the limit (11)
    "toomany.test": { TXT: ["v=spf1 include:n1.toomany.test -all"] },
    ...Object.fromEntries(
      Array.from({ length: 11 }, (_, i) => [`n${i + 1}.toomany.test`, { TXT: [i < 10 ? `v=spf1 include:n${i + 2}.toomany.test -all` : "v=spf1 ip4:192.0.2.0/24 -all"] }]),
    ),
    "_dmarc.toomany.test": { TXT: ["v=DMARC1; p=reject"] },

    // SPF: exactly ten lookups is fine
    "ten.test": { TXT: ["v=spf1 include:m1.ten.test -all"] },
    ...Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`m${i + 1}.ten.test`, { TXT: [i < 9 ? `v=spf1 include:m${i + 2}.ten.test -all` : "v=spf1 ip4:192.0.2.0/24 -all"] }]),
    ),

    // SPF: an include loop
    "loop.test": { TXT: ["v=spf1 include:loop-a.test -all"] },
    "loop-a.test": { TXT: ["v=spf1 include:loop-b.test ~all"] },
    "loop-b.test": { TXT: ["v=spf1 include:loop.test ~all"] },

    // SPF: three void lookups (over the limit of two)
    "void.test": { TXT: ["v=spf1 a:gone1.void.test a:gone2.void.test mx:gone3.void.test -all"] },

    // SPF: two records
    "twospf.test": { TXT: ["v=spf1 ip4:192.0.2.1 -all", "v=spf1 include:_spf.provider.test -all"] },

    // SPF: syntax errors named
    "spfsyntax.test": { TXT: ["v=spf1 ip4:999.1.1.1 ip6:zz::1/200 foo:bar include: -all"] },

    // SPF warnings: +all, ?all + ptr, no all
    "plusall.test": { TXT: ["v=spf1 +all"] },
    "ptr.test": { TXT: ["v=spf1 ptr ?all"] },
    "noall.test": { TXT: ["v=spf1 ip4:192.0.2.1"] },

    // SPF: more than ten MX names behind one mx
    "mxmany.test": { TXT: ["v=spf1 mx -all"], MX: Array.from({ length: 11 }, (_, i) => ({ exchange: `mx${i}.mxmany.test`, priority: i })) },

    // SPF: include of a domain without SPF (permerror), and a redirect
    "badinclude.test": { TXT: ["v=spf1 include:nospf.test -all"] },
    "nospf.test": { A: ["192.0.2.2"] },
    "redirect.test": { TXT: ["v=spf1 redirect=_spf.provider.test"] },

    // DKIM key cases
    "weak.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.weak.test": { TXT: ["v=DMARC1; p=reject"] },
    "default._domainkey.weak.test": { TXT: [`v=DKIM1; k=rsa; p=${rsa512}`] },
    "ed.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.ed.test": { TXT: ["v=DMARC1; p=reject"] },
    "s1._domainkey.ed.test": { TXT: [`v=DKIM1; k=ed25519; p=${ed}`] },
    "revoked.test": { TXT: ["v=spf1 -all"] },
    "selector1._domainkey.revoked.test": { TXT: ["v=DKIM1; k=rsa; p="] },
    "badkey.test": { TXT: ["v=spf1 -all"] },
    "k1._domainkey.badkey.test": { TXT: ["v=DKIM1; k=rsa; p=bm90IGEga2V5"] },
    "custom.test": { TXT: ["v=spf1 -all"] },
    "brand2024._domainkey.custom.test": { TXT: [["v=DKIM1; k=rsa; p=", ...splitTxt(rsa2048)]] },
    // DKIM: the key lives only at a selector no common list has (s2026), seen in the organisation's reports
    "reportsel.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.reportsel.test": { TXT: ["v=DMARC1; p=reject"] },
    "s2026._domainkey.reportsel.test": { TXT: [["v=DKIM1; k=rsa; p=", ...splitTxt(rsa2048)]] },

    // DMARC: inherited from the organisational domain
    "inherit.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.inherit.test": { TXT: ["v=DMARC1; p=reject; sp=quarantine"] },
    "sub.inherit.test": { TXT: ["v=spf1 -all"] },

    // DMARC: external rua without (and with) the destination's authorisation record
    "extrua.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.extrua.test": { TXT: ["v=DMARC1; p=quarantine; rua=mailto:reports@collector.test,mailto:d@extrua.test!10m"] },
    "authrua.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.authrua.test": { TXT: ["v=DMARC1; p=reject; rua=mailto:reports@collector.test"] },
    "authrua.test._report._dmarc.collector.test": { TXT: ["v=DMARC1"] },

    // DMARC: broken records
    "dmarcbad.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.dmarcbad.test": { TXT: ["v=DMARC1; p=maybe; pct=200; adkim=x; foo=bar; rua=http://x.test; sp=none; sp=reject"] },
    "dmarctwo.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.dmarctwo.test": { TXT: ["v=DMARC1; p=none", "v=DMARC1; p=reject"] },
    "dmarcorder.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.dmarcorder.test": { TXT: ["p=reject; v=DMARC1"] },
    "dmarcbis.test": { TXT: ["v=spf1 -all"] },
    "_dmarc.dmarcbis.test": { TXT: ["v=DMARC1; p=reject; np=reject; psd=n; t=y"] },

    // a DNS server failure
    "broken.test": { servfail: true },
  };
  Object.assign(zone, deepSpfZone());
  return zone;
}

/**
 * A deep SPF tree for the benchmark: nine includes over five levels, with sibling branches
 * (lookups stay within the limit), so a walk that resolves siblings in parallel takes about
 * depth × latency.
 */
export function deepSpfZone(): Zone {
  return {
    "deep.test": { TXT: ["v=spf1 include:a1.deep.test include:a2.deep.test include:a3.deep.test -all"], MX: [{ exchange: "mx1.good.test", priority: 10 }] },
    "a1.deep.test": { TXT: ["v=spf1 include:b1.deep.test include:b2.deep.test ~all"] },
    "a2.deep.test": { TXT: ["v=spf1 include:b3.deep.test ip4:192.0.2.0/24 ~all"] },
    "a3.deep.test": { TXT: ["v=spf1 include:b4.deep.test ~all"] },
    "b1.deep.test": { TXT: ["v=spf1 include:c1.deep.test ~all"] },
    "b2.deep.test": { TXT: ["v=spf1 ip4:198.51.100.0/24 ~all"] },
    "b3.deep.test": { TXT: ["v=spf1 ip6:2001:db8::/32 ~all"] },
    "b4.deep.test": { TXT: ["v=spf1 ip4:203.0.113.0/24 ~all"] },
    "c1.deep.test": { TXT: ["v=spf1 include:d1.deep.test ~all"] },
    "d1.deep.test": { TXT: ["v=spf1 ip4:192.0.2.128/25 ~all"] },
    "_dmarc.deep.test": { TXT: ["v=DMARC1; p=reject; rua=mailto:dmarc@deep.test"] },
    "selector1._domainkey.deep.test": { TXT: [`v=DKIM1; k=rsa; p=${dkimPublicKey("rsa", 2048)}`] },
  };
}

/**
 * `bun tests/support/dns-server.ts [--latency MS]`: serves the fixture zones in its own
 * process (for the benchmark, or to try `dmarcwarden check` by hand); prints "PORT <n>".
 */
if (import.meta.main) {
  const i = process.argv.indexOf("--latency");
  const server = await startDnsServer(fixtureZone(), { latencyMs: i > 0 ? Number(process.argv[i + 1]) : 0 });
  console.log(`PORT ${server.port}`);
  process.on("SIGTERM", () => server.close().then(() => process.exit(0)));
}
