/**
 * Which address an organisation's IMAP mailbox may be reached at. A host name is resolved
 * here, every answer is checked, and the connection then goes to the checked address itself,
 * so a second DNS answer (rebinding) cannot point it elsewhere. Loopback, private, link-local
 * and cloud metadata addresses are refused unless the operator allows them
 * (--allow-private-mailbox-hosts): otherwise any organisation admin could probe the server's
 * own network through the connection test.
 */
import { lookup } from "node:dns/promises";
import type { AppDeps } from "../../deps";
import { formatAddress, nonPublicReason, parseAddress } from "../../lib/net/address";

export type MailboxAddress = { ok: true; address: string } | { ok: false; reason: string };

export function privateMailboxHostsAllowed(deps: Pick<AppDeps, "config">): boolean {
  return deps.config.allowPrivateMailboxHosts;
}

/** The host's addresses: itself when it is one, else the DNS answers (A first, then AAAA). */
export async function addressesOf(deps: Pick<AppDeps, "resolver">, host: string): Promise<string[]> {
  if (parseAddress(host)) return [host];
  // RFC 6761: localhost names are loopback and never go to DNS
  if (/^(.+\.)?localhost\.?$/i.test(host)) return ["127.0.0.1", "::1"];
  if (deps.resolver) {
    const [a, aaaa] = await Promise.all([deps.resolver.a(host), deps.resolver.aaaa(host)]);
    return [...a.records, ...aaaa.records];
  }
  try {
    return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
}

/**
 * Why `host` may not be reached when only public addresses are (it has no address, or one of its
 * addresses is loopback, private, link-local, metadata …), or null when every address is public.
 * `flag` names the operator's switch that permits it, for the server log.
 */
export async function nonPublicHostReason(deps: Pick<AppDeps, "resolver">, rawHost: string, flag: string): Promise<string | null> {
  const host = rawHost.replace(/^\[(.*)\]$/, "$1");
  const found = await addressesOf(deps, host);
  if (!found.length) return `${host} has no address`;
  for (const text of found) {
    const bytes = parseAddress(text);
    if (!bytes) continue;
    const reason = nonPublicReason(bytes);
    if (reason) return `${host} resolves to ${formatAddress(bytes)} (${reason}); ${flag} permits it`;
  }
  return null;
}

/**
 * The address to connect to for `host`, or why there is none (for the server log only: the
 * user is told the same thing whatever the reason).
 */
export async function mailboxAddress(deps: Pick<AppDeps, "resolver" | "config">, rawHost: string): Promise<MailboxAddress> {
  const host = rawHost.trim().replace(/^\[(.*)\]$/, "$1");
  const found = await addressesOf(deps, host);
  if (!found.length) return { ok: false, reason: `${host} has no address` };
  const allowPrivate = privateMailboxHostsAllowed(deps);
  const refused: string[] = [];
  for (const text of found) {
    const bytes = parseAddress(text);
    if (!bytes) continue;
    const address = formatAddress(bytes);
    const reason = nonPublicReason(bytes);
    if (reason === null || allowPrivate) return { ok: true, address };
    refused.push(`${address} (${reason})`);
  }
  return { ok: false, reason: `${host} resolves only to addresses that are not public: ${refused.join(", ")}; --allow-private-mailbox-hosts permits them` };
}
