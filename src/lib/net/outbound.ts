/**
 * Where an outbound request to a host someone else named may go: the one address it connects to,
 * chosen among the host's DNS answers after every answer was checked, and the URL that reaches
 * that address while the request still names the host. Pure: the look-up is the caller's.
 */
import { formatAddress, nonPublicReason, parseAddress } from "./address";

export type OutboundTarget = { ok: true; address: string } | { ok: false; reason: string };

/** RFC 6761: localhost names are loopback and never go to DNS. */
export const isLocalhostName = (host: string) => /^(.+\.)?localhost\.?$/i.test(host);

/**
 * The address to connect to for `host` among `answers` (the first one), or why none: no address,
 * or — unless `allowPrivate` — any answer that is not public (loopback, private, link-local …),
 * so a name cannot mix a public address with an internal one. `flag` names the operator's
 * switch that permits private addresses.
 */
export function outboundTarget(host: string, answers: string[], allowPrivate: boolean, flag: string): OutboundTarget {
  const addresses = answers.map((text) => parseAddress(text)).filter((bytes) => bytes !== null);
  if (!addresses.length) return { ok: false, reason: `${host} has no address` };
  if (!allowPrivate) {
    for (const bytes of addresses) {
      const reason = nonPublicReason(bytes);
      if (reason) return { ok: false, reason: `${host} resolves to ${formatAddress(bytes)} (${reason}); ${flag} permits it` };
    }
  }
  return { ok: true, address: formatAddress(addresses[0]!) };
}

/** `url` with its host replaced by `address` (IPv6 in brackets); scheme, port, path and query kept. */
export function urlAt(url: URL, address: string): URL {
  const at = new URL(url);
  at.hostname = address.includes(":") ? `[${address}]` : address;
  return at;
}
