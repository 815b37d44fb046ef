/**
 * What keeps one client from holding the SMTP receiver: a cap on connections per client
 * address, a short idle deadline before MAIL FROM, and message rate limits per client address
 * and per recipient token. Connection counts live in this process (they are naturally per
 * node); message counts go through the app's RateLimiter, which counts in the database, so they
 * hold across every node.
 */
import type { Config } from "../../config";
import { formatAddress, parseAddress } from "../../lib/net/address";

export interface SmtpLimits {
  /** connections open at once, all clients together */
  maxConnections: number;
  /** connections open at once from one client address (an IPv6 client counts by its /64) */
  maxConnectionsPerAddress: number;
  /** a client must send MAIL FROM within this many milliseconds of connecting */
  idleBeforeMailMs: number;
  /** messages (MAIL FROM) per client address per window */
  messagesPerAddress: number;
  /** messages per recipient token (one organisation's report address) per window */
  messagesPerToken: number;
  /** the rate-limit window, in seconds */
  windowSeconds: number;
}

export const DEFAULT_SMTP_LIMITS: SmtpLimits = {
  maxConnections: 100,
  maxConnectionsPerAddress: 10,
  idleBeforeMailMs: 30_000,
  messagesPerAddress: 200,
  messagesPerToken: 100,
  windowSeconds: 600,
};

/** The limits from the flags (src/config.ts), defaults where a flag is not set. */
export function smtpLimitsFromConfig(config: Pick<Config, "smtpMaxConnections" | "smtpMaxConnectionsPerAddress" | "smtpIdleTimeout" | "smtpMessagesPerAddress" | "smtpMessagesPerToken">): SmtpLimits {
  const positive = (value: number, fallback: number) => (Number.isInteger(value) && value > 0 ? value : fallback);
  const d = DEFAULT_SMTP_LIMITS;
  return {
    maxConnections: positive(config.smtpMaxConnections, d.maxConnections),
    maxConnectionsPerAddress: positive(config.smtpMaxConnectionsPerAddress, d.maxConnectionsPerAddress),
    idleBeforeMailMs: positive(config.smtpIdleTimeout, d.idleBeforeMailMs / 1000) * 1000,
    messagesPerAddress: positive(config.smtpMessagesPerAddress, d.messagesPerAddress),
    messagesPerToken: positive(config.smtpMessagesPerToken, d.messagesPerToken),
    windowSeconds: d.windowSeconds,
  };
}

/** The key a client address counts under: IPv4 (mapped or not) as is, IPv6 by its /64. */
export function clientKey(remoteAddress: string): string {
  const bytes = parseAddress(remoteAddress);
  if (!bytes) return remoteAddress;
  const text = formatAddress(bytes);
  if (!text.includes(":")) return text;
  bytes.fill(0, 8);
  return `${formatAddress(bytes)}/64`;
}

/** Open connections by client key; a session counts once, from admission to close. */
export class ConnectionCounter {
  private readonly byKey = new Map<string, Set<string>>();

  /** Admits the session unless its address already holds `max` connections. */
  admit(key: string, sessionId: string, max: number): boolean {
    let open = this.byKey.get(key);
    if (!open) this.byKey.set(key, (open = new Set()));
    if (open.size >= max) return false;
    open.add(sessionId);
    return true;
  }

  release(key: string, sessionId: string): void {
    const open = this.byKey.get(key);
    if (!open) return;
    open.delete(sessionId);
    if (!open.size) this.byKey.delete(key);
  }
}
