/**
 * Which address an organisation's IMAP mailbox may be reached at. A host name is resolved
 * here, every answer is checked, and the connection then goes to the checked address itself,
 * so a second DNS answer (rebinding) cannot point it elsewhere. Loopback, private, link-local
 * and cloud metadata addresses are refused unless the operator allows them
 * (--allow-private-mailbox-hosts): otherwise any organisation admin could probe the server's
 * own network through the connection test.
 */
import type { AppDeps } from "../../deps";
import { formatAddress, nonPublicReason, parseAddress } from "../../lib/net/address";
import { resolveHost } from "../net/outbound";

export type MailboxAddress = { ok: true; address: string } | { ok: false; reason: string };

export function privateMailboxHostsAllowed(deps: Pick<AppDeps, "config">): boolean {
  return deps.config.allowPrivateMailboxHosts;
}

/**
 * The address to connect to for `host`, or why there is none (for the server log only: the
 * user is told the same thing whatever the reason).
 */
export async function mailboxAddress(deps: Pick<AppDeps, "resolver" | "config">, rawHost: string): Promise<MailboxAddress> {
  const host = rawHost.trim().replace(/^\[(.*)\]$/, "$1");
  const found = (await resolveHost(deps, host)).addresses;
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
