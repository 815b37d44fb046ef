/**
 * The one DNS resolver: questions over UDP (falling back to TCP when an answer is truncated)
 * against the configured servers, with a per-query timeout and one retry, and a cache that
 * honours each answer's TTL, capped by a maximum, with negative caching.
 *
 * Not node:dns: Bun's resolveTxt keeps only the first 255-byte string of a TXT record (every
 * 2048-bit DKIM key is split into several) and reports NODATA as ENOTFOUND.
 */
import { randomInt } from "node:crypto";
import dgram from "node:dgram";
import { readFileSync } from "node:fs";
import net, { isIP } from "node:net";
import type * as DnsPacket from "dns-packet";
import type { LookupResult, LookupStatus, MxAnswer, TxtRecord } from "../../lib/dns/types";
import { normalizeAddress } from "../../lib/net/address";

// the packet codec (dns-packet: a Buffer-based encoder and decoder, about ten times faster than
// dns2's bit reader, which cost 90 µs a question in the reverse DNS of a large report) loads with
// the first query, not at start
let codec: typeof DnsPacket | null = null;
const packets = (): typeof DnsPacket => (codec ??= require("dns-packet") as typeof DnsPacket);

export type RecordType = "A" | "AAAA" | "MX" | "TXT" | "PTR" | "CNAME";

export interface DnsServer {
  host: string;
  port: number;
}

/** A DNSKEY answer: how many keys, and whether the resolver marked it authenticated (AD bit). */
export interface DnskeyLookup {
  status: LookupStatus;
  keys: number;
  authenticated: boolean;
  error?: string;
}

/** A DNSKEY answer as asked and kept: one record per key (its flags), and the answer's AD bit. */
type DnskeyResult = LookupResult<number> & { authenticated: boolean };

/** Cache policy; per organisation later (Settings: DNS caching toggle and cache TTL). */
export interface CachePolicy {
  /** use and fill the cache (default true) */
  cache?: boolean;
  /** longest time any answer is kept, seconds (default 3600) */
  maxTtl?: number;
  /** ask the DNS server even when an answer is cached, and keep the new answer ("Check now" after a record was published) */
  refresh?: boolean;
}

export interface DnsResolver {
  readonly servers: DnsServer[];
  txt(name: string): Promise<LookupResult<TxtRecord>>;
  mx(name: string): Promise<LookupResult<MxAnswer>>;
  a(name: string): Promise<LookupResult<string>>;
  aaaa(name: string): Promise<LookupResult<string>>;
  /** the CNAME target of `name` itself (lower case, no trailing dot), not followed */
  cname(name: string): Promise<LookupResult<string>>;
  /** PTR names for an IPv4 or IPv6 address ([] when none or on failure) */
  reverse(ip: string): Promise<string[]>;
  /**
   * DNSKEY records at `name`, asked with the AD bit and DNSSEC OK set (RFC 6840 §5.7), so a
   * validating resolver says whether it validated the answer. Cached like the other answers
   * (for the keys' TTL; a negative answer for its SOA's; failures never), so a readiness page
   * or a check asked again within the TTL asks nothing.
   */
  dnskey(name: string): Promise<DnskeyLookup>;
  /** the same resolver and cache with another cache policy */
  withPolicy(policy: CachePolicy): DnsResolver;
  /** how many queries went to the network (for the benchmark and tests) */
  readonly queryCount: number;
  clearCache(): void;
}

export interface ResolverOptions extends CachePolicy {
  servers?: DnsServer[];
  /** per-attempt timeout in milliseconds (default 2500) */
  timeoutMs?: number;
  /** attempts after the first (default 1) */
  retries?: number;
  /** how long a negative answer is kept when the server sends no SOA (default 300 s) */
  negativeTtl?: number;
  now?: () => number;
}

export const DEFAULT_MAX_TTL = 3600;
const MAX_CACHE_ENTRIES = 20_000;

/** "HOST", "HOST:PORT", "[V6]:PORT" or a bare IPv6 address → server. */
export function parseDnsServer(spec: string): DnsServer {
  const s = spec.trim();
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket) return { host: bracket[1]!, port: bracket[2] ? Number(bracket[2]) : 53 };
  if (isIP(s) === 6) return { host: s, port: 53 };
  const m = /^([^:]+)(?::(\d+))?$/.exec(s);
  if (!m) throw new Error(`"${spec}" is not HOST or HOST:PORT`);
  const port = m[2] ? Number(m[2]) : 53;
  if (port < 1 || port > 65535) throw new Error(`"${spec}": port must be 1 to 65535`);
  return { host: m[1]!, port };
}

/** The system's resolvers from /etc/resolv.conf (127.0.0.1 when there is none). */
export function systemDnsServers(path = "/etc/resolv.conf"): DnsServer[] {
  try {
    const servers = readFileSync(path, "utf8")
      .split("\n")
      .map((line) => /^\s*nameserver\s+(\S+)/.exec(line)?.[1])
      .filter((h): h is string => !!h)
      .map((h) => ({ host: h.replace(/%.*$/, ""), port: 53 }));
    if (servers.length) return servers;
  } catch {}
  return [{ host: "127.0.0.1", port: 53 }];
}

/** The resolver's servers from the `dns-server` flag (list), or the system's. */
export function dnsServersFromConfig(value: unknown): DnsServer[] {
  const list = Array.isArray(value) ? (value as string[]) : [];
  return list.length ? list.map(parseDnsServer) : systemDnsServers();
}

/** in-addr.arpa / ip6.arpa name for an address, or null */
export function reverseName(ip: string): string | null {
  const kind = isIP(ip);
  if (kind === 4) return `${ip.split(".").reverse().join(".")}.in-addr.arpa`;
  if (kind === 6) {
    const [head, tail = ""] = ip.toLowerCase().split("::");
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = ip.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
    if (groups.length !== 8) return null;
    const nibbles = groups.map((g) => g.padStart(4, "0")).join("");
    return `${[...nibbles].reverse().join(".")}.ip6.arpa`;
  }
  return null;
}

const RCODE_STATUS: Record<number, LookupStatus> = { 2: "servfail", 3: "nxdomain", 5: "refused" };

function validName(name: string): boolean {
  if (!name || name.length > 253) return false;
  return name.split(".").every((label) => label.length > 0 && label.length <= 63);
}

interface CacheEntry {
  expires: number;
  result: LookupResult<unknown>;
}

class ResolverCore {
  readonly cache = new Map<string, CacheEntry>();
  readonly inFlight = new Map<string, Promise<LookupResult<unknown>>>();
  /** the UDP socket(s) each server is asked from */
  private readonly channels = new Map<DnsServer, UdpChannel>();
  queries = 0;
  /** when the full cache was last swept for expired answers */
  private lastSweep = Number.NEGATIVE_INFINITY;
  constructor(
    readonly servers: DnsServer[],
    readonly timeoutMs: number,
    readonly retries: number,
    readonly negativeTtl: number,
    readonly now: () => number,
  ) {}

  /** One question to one server: over UDP (a socket shared by the questions under way, see UdpChannel), over TCP when the answer is truncated. */
  private async ask(server: DnsServer, name: string, type: RecordType): Promise<DnsPacket.DecodedPacket> {
    this.queries++;
    return this.exchange(server, { name, type, dnssec: false, id: 0 });
  }

  /** Sends `query` (its id is set here) and answers its reply: UDP first, TCP when truncated, the whole exchange within the timeout. */
  private async exchange(server: DnsServer, query: Query): Promise<DnsPacket.DecodedPacket> {
    const started = performance.now();
    let channel = this.channels.get(server);
    if (!channel) this.channels.set(server, (channel = new UdpChannel(server)));
    const packet = await channel.exchange(query, this.timeoutMs);
    if (!packet.flag_tc) return packet;
    const left = Math.max(1, Math.round(this.timeoutMs - (performance.now() - started)));
    const whole = await exchangeTcp(server, encodeQuery(query), left);
    if (whole.id !== query.id) throw new Error("mismatched answer id");
    return whole;
  }

  /**
   * DNSKEY with AD and DO set (UDP, then TCP when truncated). One record per key (its flags),
   * with the AD bit of the answer.
   */
  async dnskey(name: string): Promise<DnskeyResult> {
    const server = this.servers[0]!;
    this.queries++;
    try {
      const packet = await this.exchange(server, { name, type: "DNSKEY", dnssec: true, id: 0 });
      return { ...this.interpret(packet, "DNSKEY"), authenticated: packet.flag_ad } as DnskeyResult;
    } catch (error) {
      return { ...failedLookup(error), authenticated: false };
    }
  }

  async query(name: string, type: RecordType): Promise<LookupResult<unknown>> {
    let last: LookupResult<unknown> = { status: "error", records: [], ttl: 0, error: "no DNS server" };
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      const server = this.servers[attempt % this.servers.length]!;
      try {
        const packet = await this.ask(server, name, type);
        last = this.interpret(packet, type);
        if (last.status !== "servfail" && last.status !== "refused") return last;
      } catch (error) {
        last = failedLookup(error);
      }
    }
    return last;
  }

  private interpret(packet: DnsPacket.DecodedPacket, type: RecordType | "DNSKEY"): LookupResult<unknown> {
    // the header's low four bits (the decoder names them; the number is what RFC 1035 gives)
    const rcode = (packet.flags ?? 0) & 0xf;
    if (rcode !== 0) {
      const status = RCODE_STATUS[rcode] ?? "error";
      return { status, records: [], ttl: status === "nxdomain" ? this.negativeTtlOf(packet) : 0, error: status === "error" ? `rcode ${rcode}` : undefined };
    }
    const answers = (packet.answers ?? []).filter((a) => a.type === type);
    if (!answers.length) return { status: "nodata", records: [], ttl: this.negativeTtlOf(packet) };
    const ttl = Math.min(...answers.map((a) => Number((a as { ttl?: number }).ttl) || 0));
    const records = answers.map((a) => answerValue(a, type));
    return { status: "ok", records, ttl };
  }

  /** RFC 2308: a negative answer lives min(SOA TTL, SOA minimum); without SOA, the default. */
  private negativeTtlOf(packet: DnsPacket.DecodedPacket): number {
    const soa = (packet.authorities ?? []).find((r): r is DnsPacket.SoaAnswer => r.type === "SOA");
    if (soa && Number.isFinite(Number(soa.data?.minimum))) return Math.min(Number(soa.ttl) || 0, Number(soa.data.minimum));
    return this.negativeTtl;
  }

  store(key: string, result: LookupResult<unknown>, maxTtl: number) {
    // failures say nothing about the records: never cached
    if (result.status !== "ok" && result.status !== "nxdomain" && result.status !== "nodata") return;
    const ttl = Math.min(result.ttl, maxTtl);
    if (ttl <= 0) return;
    if (this.cache.size >= MAX_CACHE_ENTRIES) {
      const now = this.now();
      // the walk over every entry at most once a second: a full cache must not make each answer cost a walk (a CLI ingest stores 100,000 PTRs)
      if (now - this.lastSweep >= 1000) {
        this.lastSweep = now;
        for (const [k, v] of this.cache) if (v.expires <= now) this.cache.delete(k);
      }
      while (this.cache.size >= MAX_CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(key, { expires: this.now() + ttl * 1000, result });
  }
}

class PolicyResolver implements DnsResolver {
  constructor(
    private readonly core: ResolverCore,
    private readonly policy: Required<CachePolicy>,
  ) {}

  get servers() {
    return this.core.servers;
  }
  get queryCount() {
    return this.core.queries;
  }
  clearCache() {
    this.core.cache.clear();
  }
  withPolicy(policy: CachePolicy): DnsResolver {
    return new PolicyResolver(this.core, { ...this.policy, ...policy });
  }

  async lookup<T>(rawName: string, type: RecordType): Promise<LookupResult<T>> {
    const name = rawName.toLowerCase().replace(/\.$/, "");
    if (!validName(name)) return { status: "error", records: [], ttl: 0, error: "not a valid DNS name" };
    return this.cached(`${type} ${name}`, () => this.core.query(name, type)) as Promise<LookupResult<T>>;
  }

  /** The answer kept for `key` while its TTL lasts (as the policy allows), else `ask`'s, shared by identical questions under way. */
  private async cached<R extends LookupResult<unknown>>(key: string, ask: () => Promise<R>): Promise<R> {
    const core = this.core;
    if (this.policy.cache && !this.policy.refresh) {
      const hit = core.cache.get(key);
      if (hit && hit.expires > core.now()) {
        const left = Math.ceil((hit.expires - core.now()) / 1000);
        return { ...(hit.result as R), ttl: left };
      }
    }
    // identical questions asked at the same time share one query
    let pending = core.inFlight.get(key) as Promise<R> | undefined;
    if (!pending) {
      pending = ask().finally(() => core.inFlight.delete(key));
      core.inFlight.set(key, pending);
    }
    const result = await pending;
    if (this.policy.cache) core.store(key, result, this.policy.maxTtl);
    return { ...result, ttl: Math.min(result.ttl, this.policy.maxTtl) };
  }

  txt(name: string) {
    return this.lookup<TxtRecord>(name, "TXT");
  }
  mx(name: string) {
    return this.lookup<MxAnswer>(name, "MX");
  }
  a(name: string) {
    return this.lookup<string>(name, "A");
  }
  aaaa(name: string) {
    return this.lookup<string>(name, "AAAA");
  }
  cname(name: string) {
    return this.lookup<string>(name, "CNAME");
  }
  async dnskey(name: string): Promise<DnskeyLookup> {
    const clean = name.toLowerCase().replace(/\.$/, "");
    if (!validName(clean)) return { status: "error", keys: 0, authenticated: false, error: "not a valid DNS name" };
    const { status, records, authenticated, error } = await this.cached(`DNSKEY ${clean}`, () => this.core.dnskey(clean));
    return { status, keys: records.length, authenticated, ...(error === undefined ? {} : { error }) };
  }
  async reverse(ip: string): Promise<string[]> {
    const name = reverseName(ip);
    if (!name) return [];
    const result = await this.lookup<string>(name, "PTR");
    return result.status === "ok" ? result.records : [];
  }
}

/** One question as sent: `name`'s records of `type`, recursion desired; its id is set when it goes out. */
interface Query {
  name: string;
  type: RecordType | "DNSKEY";
  /** ask with the AD bit and EDNS's DNSSEC OK (RFC 6840 §5.7), for DNSKEY */
  dnssec: boolean;
  id: number;
}

function encodeQuery(query: Query): Buffer {
  const p = packets();
  return p.encode({
    type: "query",
    id: query.id,
    flags: p.RECURSION_DESIRED | (query.dnssec ? p.AUTHENTIC_DATA : 0),
    questions: [{ type: query.type, name: query.name, class: "IN" }],
    additionals: query.dnssec ? [{ type: "OPT", name: ".", udpPayloadSize: 4096, flags: p.DNSSEC_OK } as DnsPacket.OptAnswer] : [],
  });
}

/** One answer record of the type asked, as the lookups give it. */
function answerValue(a: DnsPacket.Answer, type: RecordType | "DNSKEY"): unknown {
  const data = (a as { data?: unknown }).data;
  switch (type) {
    case "TXT": {
      const strings = (Array.isArray(data) ? data : [data ?? ""]).map((s) => (typeof s === "string" ? s : Buffer.from(s as Uint8Array).toString("utf8")));
      return { strings, text: strings.join("") } satisfies TxtRecord;
    }
    case "MX": {
      const mx = data as DnsPacket.MxData;
      return { exchange: String(mx?.exchange ?? "").replace(/\.$/, "").toLowerCase(), priority: Number(mx?.preference) } satisfies MxAnswer;
    }
    case "A":
      return String(data);
    case "AAAA":
      // RFC 5952's text (the longest run of zeros compressed), as addresses are written everywhere else
      return normalizeAddress(String(data)) ?? String(data);
    case "DNSKEY":
      return Number((data as DnsPacket.DnskeyData)?.flags);
    default:
      return String(data ?? "").replace(/\.$/, "").toLowerCase();
  }
}

/** A question that got no answer: timed out, or failed otherwise (a socket error, an answer that could not be read). */
function failedLookup(error: unknown): LookupResult<never> {
  const code = (error as { code?: string })?.code;
  return { status: code === "ETIMEDOUT" ? "timeout" : "error", records: [], ttl: 0, error: (error as Error)?.message ?? String(error) };
}

function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no answer within ${ms} ms`), { code: "ETIMEDOUT" });
}

/**
 * Queries sent from one UDP socket before the next one opens another: thousands of lookups at
 * once (the reverse DNS of a large report) share a few sockets instead of opening one each,
 * and the source port still changes every so many questions (RFC 5452).
 */
export const QUERIES_PER_SOCKET = 256;

interface AwaitedAnswer {
  resolve(packet: DnsPacket.DecodedPacket): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
  /** the question asked, lower case, and its type: an answer must repeat both */
  name: string;
  type: string;
}

/** One UDP socket and the questions sent from it still waiting for their answers, by id. */
interface Outgoing {
  socket: dgram.Socket;
  sent: number;
  awaited: Map<number, AwaitedAnswer>;
}

/**
 * The UDP side of asking one server. Questions under way share a socket, told apart by their
 * random ids; an answer counts only when it comes from the server's address and port, carries
 * an id still awaited on that socket and repeats the question. A socket is closed once nothing
 * sent from it is awaited, and stops taking questions after QUERIES_PER_SOCKET.
 */
class UdpChannel {
  private current: Outgoing | null = null;
  private readonly expectedAddress: string | null;
  constructor(private readonly server: DnsServer) {
    this.expectedAddress = isIP(server.host) ? server.host : null;
  }

  exchange(query: Query, timeoutMs: number): Promise<DnsPacket.DecodedPacket> {
    if (!this.current || this.current.sent >= QUERIES_PER_SOCKET) this.current = this.open();
    const out = this.current;
    let id: number;
    do id = randomInt(0x10000);
    while (out.awaited.has(id));
    query.id = id;
    out.sent++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(out, id)?.reject(timeoutError(timeoutMs)), timeoutMs);
      out.awaited.set(id, { resolve, reject, timer, name: query.name.toLowerCase(), type: query.type });
      out.socket.send(encodeQuery(query), this.server.port, this.server.host, (error) => {
        if (error) this.settle(out, id)?.reject(error);
      });
    });
  }

  private open(): Outgoing {
    const socket = dgram.createSocket(isIP(this.server.host) === 6 ? "udp6" : "udp4");
    const out: Outgoing = { socket, sent: 0, awaited: new Map() };
    socket.on("message", (data, rinfo) => {
      if (rinfo.port !== this.server.port || (this.expectedAddress && rinfo.address !== this.expectedAddress)) return;
      let packet: DnsPacket.DecodedPacket;
      try {
        packet = packets().decode(data);
      } catch {
        return;
      }
      const id = packet.id ?? -1;
      const awaited = out.awaited.get(id);
      const question = packet.questions?.[0];
      // a late answer to a question given up on, or one for another question: not this one's
      if (!awaited || !question || String(question.name).toLowerCase() !== awaited.name || question.type !== awaited.type) return;
      this.settle(out, id)?.resolve(packet);
    });
    socket.on("error", (error) => {
      for (const id of [...out.awaited.keys()]) this.settle(out, id)?.reject(error);
    });
    return out;
  }

  /** Takes question `id` off its socket (closing the socket when it was the last awaited); undefined when already settled. */
  private settle(out: Outgoing, id: number): AwaitedAnswer | undefined {
    const awaited = out.awaited.get(id);
    if (!awaited) return undefined;
    clearTimeout(awaited.timer);
    out.awaited.delete(id);
    if (out.awaited.size === 0) {
      if (this.current === out) this.current = null;
      try {
        out.socket.close();
      } catch {}
    }
    return awaited;
  }
}

function exchangeTcp(server: DnsServer, message: Buffer, timeoutMs: number): Promise<DnsPacket.DecodedPacket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => done(timeoutError(timeoutMs)), timeoutMs);
    const done = (error: Error | null, packet?: DnsPacket.DecodedPacket) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(packet!);
    };
    socket.on("connect", () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length);
      socket.write(Buffer.concat([length, message]));
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const all = Buffer.concat(chunks);
      if (all.length >= 2 && all.length >= 2 + all.readUInt16BE(0)) {
        try {
          done(null, packets().decode(all.subarray(2, 2 + all.readUInt16BE(0))));
        } catch (error) {
          done(error as Error);
        }
      }
    });
    socket.on("error", (error) => done(error));
  });
}

export function createResolver(options: ResolverOptions = {}): DnsResolver {
  const servers = options.servers?.length ? options.servers : systemDnsServers();
  const core = new ResolverCore(servers, options.timeoutMs ?? 2500, options.retries ?? 1, options.negativeTtl ?? 300, options.now ?? Date.now);
  return new PolicyResolver(core, { cache: options.cache ?? true, maxTtl: options.maxTtl ?? DEFAULT_MAX_TTL, refresh: options.refresh ?? false });
}
