/**
 * The network probes behind the deep DNS checks: an HTTPS GET (MTA-STS policy, BIMI logo) and
 * an SMTP EHLO + STARTTLS (MX hosts). Every host here is named in someone else's DNS, so a
 * probe resolves it through the checks' resolver, refuses loopback, private and link-local
 * addresses (unless the operator allows them, for tests), and connects to the address it
 * checked — a second lookup can never swap it. Sizes and times are bounded; nothing throws.
 */
import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import { ConfigError } from "../../config";
import type { CertificateInfo } from "../../lib/dns/transport";
import { formatAddress, nonPublicReason, parseAddress } from "../../lib/net/address";
import type { DnsResolver } from "./resolver";

export interface ProbeOptions {
  /** PEM CA certificates trusted besides the system's (--extra-ca-file) */
  extraCa?: string[];
  /** connect to loopback, private and link-local addresses too (--allow-private-probe-hosts; tests) */
  allowPrivate?: boolean;
  /** SMTP port of the STARTTLS probe (--smtp-probe-port, default 25; 0 turns the SMTP probe off) */
  smtpPort?: number;
  /** port of the HTTPS fetches when the URL names none (--https-probe-port, default 443; tests) */
  httpsPort?: number;
  /** time allowed to each probe, milliseconds (default 5000) */
  timeoutMs?: number;
}

/** The probe options from configuration; reads the extra CA file now, so a bad path fails at start. */
export function probeOptionsFromConfig(config: { extraCaFile: string; allowPrivateProbeHosts: boolean; smtpProbePort: number; httpsProbePort: number }): ProbeOptions {
  let extraCa: string[] | undefined;
  if (config.extraCaFile) {
    try {
      extraCa = [readFileSync(config.extraCaFile, "utf8")];
    } catch (error) {
      throw new ConfigError(`--extra-ca-file: cannot read ${config.extraCaFile} (${(error as Error).message})`);
    }
  }
  return { extraCa, allowPrivate: config.allowPrivateProbeHosts, smtpPort: config.smtpProbePort, httpsPort: config.httpsProbePort };
}

const DEFAULT_TIMEOUT_MS = 5000;

/** Where a probe stopped: the stage names the finding. */
export type ProbeFailure = { ok: false; stage: "dns" | "address" | "connect" | "timeout" | "tls" | "http" | "size"; message: string; certificate?: CertificateInfo };

/** The first address of `host` the probe may connect to, or why none. */
export async function probeAddress(resolver: DnsResolver, host: string, options: ProbeOptions): Promise<{ ok: true; address: string } | ProbeFailure> {
  const literal = parseAddress(host);
  let found: string[];
  if (literal) found = [formatAddress(literal)];
  else {
    const [a, aaaa] = await Promise.all([resolver.a(host), resolver.aaaa(host)]);
    found = [...a.records, ...aaaa.records];
    if (!found.length) {
      const temporary = ![a.status, aaaa.status].some((s) => s === "ok" || s === "nodata" || s === "nxdomain");
      return { ok: false, stage: "dns", message: temporary ? `the address of ${host} could not be looked up (${a.status})` : `${host} has no address (A or AAAA record)` };
    }
  }
  for (const text of found) {
    const bytes = parseAddress(text);
    if (!bytes) continue;
    const reason = nonPublicReason(bytes);
    if (!reason || options.allowPrivate) return { ok: true, address: formatAddress(bytes) };
    return { ok: false, stage: "address", message: `${host} resolves to ${formatAddress(bytes)} (${reason}); it is not connected to` };
  }
  return { ok: false, stage: "dns", message: `${host} has no usable address` };
}

function certificateOf(socket: tls.TLSSocket, host: string): CertificateInfo | undefined {
  const peer = socket.getPeerCertificate();
  if (!peer || !Object.keys(peer).length) return undefined;
  const names = (peer.subjectaltname ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.startsWith("DNS:"))
    .map((s) => s.slice(4).toLowerCase());
  const cn = typeof peer.subject?.CN === "string" ? peer.subject.CN : undefined;
  const nameError = tls.checkServerIdentity(host, peer);
  const validTo = Date.parse(peer.valid_to);
  return {
    names: names.length ? names : cn ? [cn.toLowerCase()] : [],
    issuer: typeof peer.issuer?.CN === "string" ? peer.issuer.CN : typeof peer.issuer?.O === "string" ? peer.issuer.O : null,
    validTo: Number.isFinite(validTo) ? new Date(validTo).toISOString() : null,
    chainTrusted: socket.authorized || String(socket.authorizationError) === "ERR_TLS_CERT_ALTNAME_INVALID",
    chainError: socket.authorized ? null : socket.authorizationError ? String(socket.authorizationError) : null,
    nameMatches: !nameError,
  };
}

const trustedCa = (options: ProbeOptions) => (options.extraCa?.length ? [...tls.rootCertificates, ...options.extraCa] : undefined);

export interface HttpsFetch {
  ok: true;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  certificate?: CertificateInfo;
}

/**
 * GET `url` over HTTPS, no redirects followed, at most `maxBytes` of body. A certificate that does
 * not verify for the host ends the fetch before the request is sent (stage "tls").
 */
export async function httpsGet(resolver: DnsResolver, rawUrl: string, maxBytes: number, options: ProbeOptions): Promise<HttpsFetch | ProbeFailure> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, stage: "http", message: `"${rawUrl}" is not a URL` };
  }
  if (url.protocol !== "https:") return { ok: false, stage: "http", message: "only https:// addresses are fetched" };
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  const target = await probeAddress(resolver, host, options);
  if (!target.ok) return target;
  const port = url.port ? Number(url.port) : (options.httpsPort ?? 443);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let certificate: CertificateInfo | undefined;
    const finish = (result: HttpsFetch | ProbeFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const socket = tls.connect({ host: target.address, port, servername: parseAddress(host) ? undefined : host, ca: trustedCa(options), rejectUnauthorized: false }, () => {
      certificate = certificateOf(socket, host);
      if (!socket.authorized) {
        finish({ ok: false, stage: "tls", message: `the HTTPS certificate of ${host} is not valid for it (${socket.authorizationError ?? "unknown reason"})`, certificate });
        return;
      }
      socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: dmarcwarden-check\r\nAccept: */*\r\nConnection: close\r\n\r\n`);
    });
    const timer = setTimeout(() => finish({ ok: false, stage: "timeout", message: `${host} did not answer within ${timeoutMs / 1000} s` }), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      // headers are small; a body past the bound stops the fetch
      if (size > maxBytes + 16_384) finish({ ok: false, stage: "size", message: `the file at ${rawUrl} is larger than ${Math.round(maxBytes / 1024)} KB`, certificate });
    });
    socket.on("end", () => finish(parseHttpResponse(Buffer.concat(chunks), maxBytes, rawUrl, certificate)));
    socket.on("close", () => finish(parseHttpResponse(Buffer.concat(chunks), maxBytes, rawUrl, certificate)));
    socket.on("error", (error) => finish({ ok: false, stage: "connect", message: `could not connect to ${host}:${port} (${error.message})` }));
  });
}

function parseHttpResponse(raw: Buffer, maxBytes: number, url: string, certificate?: CertificateInfo): HttpsFetch | ProbeFailure {
  const end = raw.indexOf("\r\n\r\n");
  if (end < 0) return { ok: false, stage: "http", message: `no HTTP answer from ${url}`, certificate };
  const [statusLine, ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  if (!status) return { ok: false, stage: "http", message: `no HTTP answer from ${url}`, certificate };
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) body = dechunk(body);
  if (body.length > maxBytes) return { ok: false, stage: "size", message: `the file at ${url} is larger than ${Math.round(maxBytes / 1024)} KB`, certificate };
  return { ok: true, status, headers, body, certificate };
}

function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const lineEnd = body.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size) || size <= 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export interface SmtpProbe {
  host: string;
  /** "starttls": offered and the upgrade worked; "no_starttls": EHLO answered without it; "failed": offered but the upgrade failed; "unchecked": no answer */
  outcome: "starttls" | "no_starttls" | "failed" | "unchecked";
  address?: string;
  /** why the host could not be checked, or why the upgrade failed */
  reason?: string;
  certificate?: CertificateInfo;
}

/** EHLO on the host's SMTP port and, when offered, STARTTLS; the certificate it presents. */
export async function probeSmtp(resolver: DnsResolver, host: string, options: ProbeOptions): Promise<SmtpProbe> {
  const target = await probeAddress(resolver, host, options);
  if (!target.ok) return { host, outcome: "unchecked", reason: target.message };
  const port = options.smtpPort ?? 25;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    let buffer = "";
    let step: "banner" | "ehlo" | "starttls" | "tls" = "banner";
    let secure: tls.TLSSocket | undefined;
    const finish = (result: SmtpProbe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      secure?.destroy();
      socket.destroy();
      resolve({ address: target.address, ...result });
    };
    const timer = setTimeout(() => finish({ host, outcome: "unchecked", reason: `${host} did not answer on port ${port} within ${timeoutMs / 1000} s` }), timeoutMs);
    const socket = net.connect({ host: target.address, port });
    socket.on("error", (error) => finish({ host, outcome: "unchecked", reason: `could not connect to ${host} on port ${port} (${error.message})` }));
    socket.on("close", () => finish({ host, outcome: "unchecked", reason: `${host} closed the connection during the ${step} step` }));
    socket.on("data", (chunk: Buffer) => {
      if (step === "tls") return;
      buffer += chunk.toString("latin1");
      if (buffer.length > 65_536) return finish({ host, outcome: "unchecked", reason: `${host} sent an overlong SMTP answer` });
      // a reply is complete at a line whose code is followed by a space
      const lines = buffer.split("\r\n");
      const last = lines.slice(0, -1).findLast((l) => /^\d{3} /.test(l) || /^\d{3}$/.test(l));
      if (!last) return;
      const reply = buffer;
      buffer = "";
      const code = Number(last.slice(0, 3));
      if (step === "banner") {
        if (code !== 220) return finish({ host, outcome: "unchecked", reason: `${host} greeted with "${last}"` });
        step = "ehlo";
        socket.write("EHLO dmarcwarden.check\r\n");
      } else if (step === "ehlo") {
        if (code !== 250) return finish({ host, outcome: "unchecked", reason: `${host} refused EHLO: "${last}"` });
        if (!/^250[- ]STARTTLS\b/im.test(reply)) {
          socket.write("QUIT\r\n");
          return finish({ host, outcome: "no_starttls" });
        }
        step = "starttls";
        socket.write("STARTTLS\r\n");
      } else if (step === "starttls") {
        if (code !== 220) return finish({ host, outcome: "failed", reason: `${host} offered STARTTLS but answered "${last}"` });
        step = "tls";
        socket.removeAllListeners("close");
        secure = tls.connect({ socket, servername: host, ca: trustedCa(options), rejectUnauthorized: false }, () => {
          const certificate = certificateOf(secure!, host);
          secure!.write("QUIT\r\n");
          finish({ host, outcome: "starttls", certificate });
        });
        secure.on("error", (error) => finish({ host, outcome: "failed", reason: `the TLS handshake with ${host} failed (${error.message})` }));
      }
    });
  });
}

/** Runs `task` over `items`, at most `limit` at a time, keeping the order. */
export async function mapLimited<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
