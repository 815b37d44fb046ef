/**
 * Outgoing mail configuration: --mail-relay (smtp:// or smtps:// URL with optional user:pass)
 * and --mail-from. Checked at start-up so a bad setting stops `serve` with one line (exit 2)
 * instead of failing at the first invitation. The password never appears in a message.
 */
import { ConfigError, type Config } from "../../config";
import { DEFAULT_PORTS, relayUrlProblem } from "./relay-url";

export interface RelaySettings {
  host: string;
  port: number;
  /** smtps:// — TLS from the first byte (usually port 465); smtp:// upgrades with STARTTLS when offered */
  secure: boolean;
  auth: { user: string; pass: string } | null;
}

export function parseRelayUrl(value: string): RelaySettings {
  const problem = relayUrlProblem(value);
  if (problem) throw new ConfigError(`--mail-relay (MAIL_RELAY_URL): ${problem}`);
  const url = new URL(value);
  const protocol = url.protocol as keyof typeof DEFAULT_PORTS;
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port: url.port ? Number(url.port) : DEFAULT_PORTS[protocol],
    secure: protocol === "smtps:",
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : null,
  };
}

export interface MailSettings {
  relay: RelaySettings;
  from: string;
  publicUrl: string;
}

/** The outgoing mail settings, or null when no relay is configured (mail off). */
export function mailSettings(config: Config): MailSettings | null {
  const relayUrl = config.mailRelay.trim();
  const from = config.mailFrom.trim();
  if (!relayUrl) return null;
  const relay = parseRelayUrl(relayUrl);
  if (!from) throw new ConfigError("--mail-relay (MAIL_RELAY_URL) needs --mail-from (MAIL_FROM): the sender address of invitations and password links");
  if (!config.publicUrl) throw new ConfigError("--mail-relay (MAIL_RELAY_URL) needs --public-url (PUBLIC_URL): links in mail must point at the address users reach this server at");
  return { relay, from, publicUrl: config.publicUrl.replace(/\/+$/, "") };
}
