/**
 * Talking to an organisation's IMAP mailbox (imapflow): a connection test, and one poll that
 * hands each unseen message to a callback and files it in `Processed` or `Invalid`.
 * Knows nothing of organisations or the database; errors come back in words a user can act on.
 */
import type { ImapFlow } from "imapflow";
import { isIP } from "node:net";

export interface ImapSettings {
  host: string;
  /** the checked IP address to connect to (see mailbox-address.ts); `host` then only names the server for TLS */
  address?: string;
  port: number;
  /** implicit TLS; when false, STARTTLS is still used when the server offers it */
  tls: boolean;
  username: string;
  password: string;
  folder: string;
}

export const PROCESSED_FOLDER = "Processed";
export const INVALID_FOLDER = "Invalid";
/** messages handled in one poll at most; the rest wait for the next one */
export const MAX_MESSAGES_PER_POLL = 500;

export type MessageVerdict = "processed" | "invalid" | "retry";

export interface PollOutcome {
  processed: number;
  invalid: number;
  /** left unseen in the folder because handling failed for a reason worth retrying */
  retried: number;
}

/**
 * A failure talking to the mailbox. Only a missing folder (`folderMissing`) is safe to show as
 * it is: it needs a working sign-in. Every other problem is described for the server log.
 */
export class ImapProblem extends Error {
  constructor(
    message: string,
    readonly folderMissing = false,
  ) {
    super(message);
  }
}

function imapProblem(error: unknown, settings: ImapSettings): ImapProblem {
  if (error instanceof ImapProblem) return error;
  return new ImapProblem(describeImapError(error, settings), isFolderMissing(error));
}

async function connect(settings: ImapSettings, timeoutMs: number): Promise<ImapFlow> {
  const host = settings.host.replace(/^\[|\]$/g, "");
  // imapflow (and its MIME and charset tables) loads with the first mailbox connection
  const { ImapFlow: Client } = await import("imapflow");
  const client = new Client({
    host: settings.address ?? host,
    // a host name still names the server for SNI and certificate checks when connecting to its checked address
    servername: isIP(host) ? undefined : host,
    port: settings.port,
    secure: settings.tls,
    // imapflow passes `servername: false` for an IP address, which Bun's tls.connect refuses; no SNI then
    tls: isIP(host) ? { servername: undefined } : undefined,
    auth: { user: settings.username, pass: settings.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: 5 * 60_000,
    clientInfo: { name: "dmarcwarden" },
  });
  // imapflow also emits socket errors as events; an unhandled 'error' event would end the process.
  client.on("error", () => {});
  return client.connect().then(
    () => client,
    (error) => {
      client.close();
      throw imapProblem(error, settings);
    },
  );
}

async function finish(client: ImapFlow) {
  try {
    await client.logout();
  } catch {
    client.close();
  }
}

/** Connects, logs in and opens the folder; reports how many messages wait there. */
export async function testImapConnection(settings: ImapSettings, timeoutMs = 15_000): Promise<{ messages: number; unseen: number }> {
  const client = await connect(settings, timeoutMs);
  try {
    const status = await client.status(settings.folder, { messages: true, unseen: true });
    if (!status) throw new ImapProblem(`The folder "${settings.folder}" does not exist in this mailbox.`, true);
    return { messages: status.messages ?? 0, unseen: status.unseen ?? 0 };
  } catch (error) {
    throw imapProblem(error, settings);
  } finally {
    await finish(client);
  }
}

/**
 * One poll: every unseen message of the folder (oldest first, at most MAX_MESSAGES_PER_POLL)
 * goes to `handle`, then moves to Processed or Invalid as it says; "retry" leaves it unseen
 * where it is. Messages over `maxBytes` go to Invalid without being downloaded.
 */
export async function pollImapFolder(
  settings: ImapSettings,
  handle: (message: { uid: number; bytes: Uint8Array }) => Promise<MessageVerdict>,
  options: { maxBytes: number; timeoutMs?: number; onOversize?: (uid: number, size: number) => void },
): Promise<PollOutcome> {
  const client = await connect(settings, options.timeoutMs ?? 30_000);
  const outcome: PollOutcome = { processed: 0, invalid: 0, retried: 0 };
  try {
    await client.mailboxCreate(PROCESSED_FOLDER);
    await client.mailboxCreate(INVALID_FOLDER);
    const lock = await client.getMailboxLock(settings.folder);
    try {
      const found = await client.search({ seen: false }, { uid: true });
      const uids = (found || []).sort((a, b) => a - b).slice(0, MAX_MESSAGES_PER_POLL);
      for (const uid of uids) {
        const head = await client.fetchOne(String(uid), { size: true }, { uid: true });
        if (!head) continue; // removed meanwhile
        let verdict: MessageVerdict;
        if ((head.size ?? 0) > options.maxBytes) {
          options.onOversize?.(uid, head.size ?? 0);
          verdict = "invalid";
        } else {
          // `source` fetches BODY.PEEK[]: reading does not mark the message \Seen.
          const message = await client.fetchOne(String(uid), { source: true }, { uid: true });
          if (!message || !message.source) continue;
          verdict = await handle({ uid, bytes: new Uint8Array(message.source) });
        }
        if (verdict === "retry") {
          outcome.retried++;
          continue;
        }
        await client.messageMove(String(uid), verdict === "processed" ? PROCESSED_FOLDER : INVALID_FOLDER, { uid: true });
        outcome[verdict]++;
      }
    } finally {
      lock.release();
    }
    return outcome;
  } catch (error) {
    throw imapProblem(error, settings);
  } finally {
    await finish(client);
  }
}

function isFolderMissing(error: unknown): boolean {
  const e = (error ?? {}) as Record<string, any>;
  return !!(e.mailboxMissing || e.serverResponseCode === "NONEXISTENT" || (String(e.code ?? "") === "NotFound" && /mailbox/i.test(String(e.message ?? ""))));
}

/** imapflow / socket / TLS errors → one sentence that says what to check (for the server log). */
export function describeImapError(error: unknown, settings: Pick<ImapSettings, "host" | "port" | "folder" | "tls">): string {
  const e = (error ?? {}) as Record<string, any>;
  const code = String(e.code ?? "");
  const message = String(e.message ?? error);
  const where = `${settings.host}:${settings.port}`;
  if (e.authenticationFailed || e.serverResponseCode === "AUTHENTICATIONFAILED") return "The IMAP server refused the user name or password.";
  if (isFolderMissing(error)) return `The folder "${settings.folder}" does not exist in this mailbox.`;
  if (code === "ECONNREFUSED") return `Nothing answers on ${where} (connection refused). Check the host and port.`;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return `The host name ${settings.host} could not be found. Check the spelling.`;
  if (["CONNECT_TIMEOUT", "GREETING_TIMEOUT", "ETIMEDOUT", "ETIMEOUT", "UPGRADE_TIMEOUT"].includes(code))
    return `No answer from ${where} in time. Check the host, the port and that a firewall lets this server through.`;
  if (e.tlsFailed || /ssl|tls|certificate|CERT_|wrong version/i.test(`${code} ${message}`))
    return `The TLS connection to ${where} failed (${message}). ${settings.tls ? "Turn TLS off if this port expects plain IMAP (usually 143), or check the server's certificate." : "Turn TLS on if this port expects IMAPS (usually 993)."}`;
  if (code === "ClosedAfterConnectText" || code === "ClosedAfterConnectTLS" || code === "EConnectionClosed" || code === "NoConnection")
    return `${where} closed the connection${e.reason ? `: ${e.reason}` : ""}. ${settings.tls ? "" : "If this port expects IMAPS (usually 993), turn TLS on."}`.trim();
  if (e.responseText) return `The IMAP server said: ${e.responseText}`;
  return `IMAP error: ${message}`;
}
