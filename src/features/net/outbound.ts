/**
 * Every outbound HTTP(S) request to a host an organization gave (alert webhooks, Slack, Teams,
 * its single sign-on issuer) goes through `outboundFetch`. The host is looked up once, through
 * the app's resolver; every address answered is checked; the connection then goes to the
 * checked address itself while the request keeps naming the host (Host header, TLS SNI and the
 * certificate's name), so a second DNS answer (rebinding, TTL 0) cannot point it at the
 * server's own network. No redirect is followed. `src/features/net/callers.test.ts` keeps
 * direct network calls out of the rest of the code.
 */
import { lookup } from "node:dns/promises";
import type { AppDeps } from "../../deps";
import { parseAddress } from "../../lib/net/address";
import { isLocalhostName, outboundTarget, urlAt } from "../../lib/net/outbound";

export interface OutboundPolicy {
  /** the operator's switch is on: loopback, private and link-local addresses and plain http are allowed */
  allowPrivate: boolean;
  /** that switch, named in refusals (e.g. "--allow-private-webhook-hosts") */
  flag: string;
  /** PEM CA certificates trusted instead of the system's (tests with a local CA) */
  ca?: string[];
}

export interface OutboundRequest {
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
  /** the whole request, answer included, is abandoned after this long */
  timeoutMs: number;
  signal?: AbortSignal | null;
}

/**
 * A request refused before any connection ("refused": the URL or one of the host's addresses is
 * not allowed; "unresolved": the look-up failed and may work later), or an answer over its bound
 * ("too_large"). The message says which, for the server log and the delivery log.
 */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly kind: "refused" | "unresolved" | "too_large",
  ) {
    super(message);
  }
}

type Resolved = { addresses: string[]; failed: boolean };

/** The host's addresses: itself when it is one, loopback for localhost names, else its DNS answers (A first, then AAAA). */
export async function resolveHost(deps: Pick<AppDeps, "resolver">, host: string): Promise<Resolved> {
  if (parseAddress(host)) return { addresses: [host], failed: false };
  if (isLocalhostName(host)) return { addresses: ["127.0.0.1", "::1"], failed: false };
  if (deps.resolver) {
    const [a, aaaa] = await Promise.all([deps.resolver.a(host), deps.resolver.aaaa(host)]);
    const addresses = [...a.records, ...aaaa.records];
    const answered = (status: string) => status === "ok" || status === "nodata" || status === "nxdomain";
    return { addresses, failed: !addresses.length && !(answered(a.status) && answered(aaaa.status)) };
  }
  try {
    return { addresses: (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address), failed: false };
  } catch {
    return { addresses: [], failed: false };
  }
}

/**
 * Sends `request` to `target` at one checked address of its host (see the module comment).
 * Throws OutboundError when refused before connecting; a connection, TLS or time-out failure
 * throws as fetch does. The answer's body is the caller's to read (`readBounded`) or cancel.
 */
export async function outboundFetch(deps: Pick<AppDeps, "resolver">, target: string | URL, request: OutboundRequest, policy: OutboundPolicy): Promise<Response> {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new OutboundError("the URL is not valid", "refused");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundError("only http and https URLs are reached", "refused");
  if (url.protocol !== "https:" && !policy.allowPrivate) throw new OutboundError(`only https URLs are reached; ${policy.flag} permits http`, "refused");
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const resolved = await resolveHost(deps, host);
  if (resolved.failed) throw new OutboundError(`the address of ${host} could not be looked up`, "unresolved");
  const checked = outboundTarget(host, resolved.addresses, policy.allowPrivate, policy.flag);
  if (!checked.ok) throw new OutboundError(checked.reason, "refused");
  const headers = new Headers(request.headers);
  headers.set("host", url.host);
  const named = !parseAddress(host);
  const tls = url.protocol === "https:" && (named || policy.ca) ? { ...(named ? { serverName: host } : {}), ...(policy.ca ? { ca: policy.ca } : {}) } : undefined;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  return fetch(urlAt(url, checked.address), {
    method: request.method ?? "GET",
    headers,
    body: request.body,
    redirect: "manual",
    // a connection is made for one checked address and name: never handed to another request
    keepalive: false,
    signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
    tls,
  });
}

/** The answer's body, at most `maxBytes` (OutboundError "too_large" past it, the rest not read). */
export async function readBounded(res: Response, maxBytes: number, what: string): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () => new OutboundError(`${what} answered more than ${maxBytes} bytes`, "too_large");
  if (Number(res.headers.get("content-length") ?? 0) > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}
