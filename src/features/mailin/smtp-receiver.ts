/**
 * The inbound SMTP receiver for report mail (an MX, not a relay): it accepts mail only for
 * `<org-token>@<smtp-domain>` (a `+suffix` is allowed, e.g. `<token>+ruf@…`), refuses every
 * other recipient at RCPT, bounds the message size, and hands each message to ingestion for
 * the organisations it was addressed to. No AUTH; STARTTLS only with a configured certificate.
 * Logs one line per message (organisation ids, size, outcome), never addresses or bodies.
 * One client cannot hold it (connection cap per address, idle deadline before MAIL FROM,
 * message rate limits: smtp-limits.ts), and a message whose report could not be stored is
 * answered with a temporary failure, so the sender keeps it and tries again.
 */
import type { SMTPServer, SMTPServerAddress, SMTPServerDataStream, SMTPServerSession } from "smtp-server";
import { RateLimitedError } from "../../http/errors";
import type { AppDeps } from "../../deps";
import { organizationByReportToken } from "../orgs/service";
import type { IngestResult } from "../reports/ingest";
import type { IngestFn } from "./service";
import { clientKey, ConnectionCounter, DEFAULT_SMTP_LIMITS, type SmtpLimits } from "./smtp-limits";

export interface SmtpReceiverOptions {
  port: number;
  host: string;
  /** the mail domain of the report addresses */
  domain: string;
  maxBytes: number;
  /** PEM texts; STARTTLS is offered only when both are given */
  tls?: { cert: string; key: string } | null;
  /** the name the server greets with (defaults to the report domain) */
  name?: string;
  /** connection caps, idle deadline and message rates (DEFAULT_SMTP_LIMITS where not given) */
  limits?: Partial<SmtpLimits>;
}

export interface SmtpReceiver {
  port: number;
  stop(): Promise<void>;
}

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

/** The organisation a recipient address belongs to (and its token), or a refusal. */
async function resolveRecipient(deps: AppDeps, domain: string, address: string): Promise<{ orgId: string; token: string } | { refuse: Error }> {
  const at = address.lastIndexOf("@");
  const local = at > 0 ? address.slice(0, at).toLowerCase() : "";
  const recipientDomain = at > 0 ? address.slice(at + 1).toLowerCase().replace(/\.$/, "") : "";
  if (recipientDomain !== domain) return { refuse: smtpError(550, `Relaying denied: this server only accepts DMARC report mail for addresses @${domain}`) };
  const token = local.split("+")[0]!;
  const org = /^[a-z0-9]{6,64}$/.test(token) ? await organizationByReportToken(deps, token) : null;
  if (!org) return { refuse: smtpError(550, `No such report mailbox: check the rua/ruf address in your DMARC record (it is shown in dmarcwarden's settings)`) };
  return { orgId: org.id, token };
}

/** Counts one hit; a limit passed becomes a temporary SMTP failure (the sender retries later). */
async function withinRate(deps: AppDeps, bucket: string, key: string, limit: number, windowSeconds: number, code: number, message: string): Promise<Error | null> {
  try {
    await deps.limiter.hit(bucket, key, limit, windowSeconds);
    return null;
  } catch (error) {
    if (error instanceof RateLimitedError) return smtpError(code, `${message}; try again in ${error.headers?.["retry-after"] ?? windowSeconds} seconds`);
    throw error;
  }
}

/** Reads the DATA stream, keeping at most `maxBytes` in memory. null when it was larger. */
function readBounded(stream: SMTPServerDataStream, maxBytes: number): Promise<Uint8Array | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let over = false;
    stream.on("data", (chunk: Buffer) => {
      total += chunk.length;
      if (total > maxBytes) {
        // hard stop: keep draining the client's data but stop buffering it
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(over || stream.sizeExceeded ? null : new Uint8Array(Buffer.concat(chunks, total))));
  });
}

/** One SMTP reply for a message that went to one or more organisations. */
function replyFor(results: IngestResult[]): { error?: Error; message?: string } {
  // Temporary: a copy that could not be stored must stay with the sender, who retries later
  // (the copies that were stored come back as duplicates then).
  const unstored = results.find((r) => r.code === "unavailable");
  if (unstored) return { error: smtpError(451, "Could not store the report right now; please try again later") };
  const accepted = results.filter((r) => r.status !== "rejected");
  if (accepted.length) {
    const ingested = accepted.filter((r) => r.status === "ingested").length;
    return { message: ingested ? "OK: report received" : "OK: report already received (duplicate)" };
  }
  const reason = results[0]?.error ?? "not a DMARC, failure or SMTP TLS report";
  // Permanent: the same message will be refused again; the sender's MTA tells its postmaster why.
  return { error: smtpError(554, `Report refused: ${reason.replace(/[\r\n]+/g, " ").slice(0, 400)}`) };
}

export async function startSmtpReceiver(deps: AppDeps, ingest: IngestFn, options: SmtpReceiverOptions): Promise<SmtpReceiver> {
  const domain = options.domain.toLowerCase().replace(/\.$/, "");
  const limits: SmtpLimits = { ...DEFAULT_SMTP_LIMITS, ...options.limits };
  const connections = new ConnectionCounter();
  /** sessions still owing MAIL FROM, with the deadline that closes them */
  const idleTimers = new Map<string, ReturnType<typeof setTimeout>>();
  const clearIdle = (sessionId: string) => {
    clearTimeout(idleTimers.get(sessionId));
    idleTimers.delete(sessionId);
  };
  // smtp-server loads only when the receiver is turned on
  const { SMTPServer: Server } = await import("smtp-server");
  const server: SMTPServer = new Server({
    name: options.name ?? domain,
    banner: "dmarcwarden report receiver",
    size: options.maxBytes,
    authOptional: true,
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    hideENHANCEDSTATUSCODES: false,
    disableReverseLookup: true,
    logger: false,
    maxClients: limits.maxConnections,
    maxRecipients: 20,
    socketTimeout: 120_000,
    closeTimeout: 5_000,
    onConnect(session, callback) {
      const key = clientKey(session.remoteAddress);
      if (!connections.admit(key, session.id, limits.maxConnectionsPerAddress)) {
        deps.log.warn("smtp_connection_refused", { remote: session.remoteAddress, reason: "too_many_connections", limit: limits.maxConnectionsPerAddress });
        return callback(smtpError(421, `Too many connections from your address (at most ${limits.maxConnectionsPerAddress}); try again later`));
      }
      const timer = setTimeout(() => {
        idleTimers.delete(session.id);
        for (const connection of server.connections) {
          if (connection.session?.id !== session.id) continue;
          deps.log.info("smtp_idle_closed", { remote: session.remoteAddress });
          connection.send(421, `Idle too long: send MAIL FROM within ${Math.round(limits.idleBeforeMailMs / 1000)} seconds of connecting`);
        }
      }, limits.idleBeforeMailMs);
      timer.unref?.();
      idleTimers.set(session.id, timer);
      callback();
    },
    onClose(session) {
      clearIdle(session.id);
      connections.release(clientKey(session.remoteAddress), session.id);
    },
    onMailFrom(_address, session, callback) {
      clearIdle(session.id);
      withinRate(deps, "smtp-messages-address", clientKey(session.remoteAddress), limits.messagesPerAddress, limits.windowSeconds, 451, "Too many messages from your address")
        .then((refusal) => {
          if (refusal) deps.log.warn("smtp_rate_limited", { remote: session.remoteAddress, per: "address", limit: limits.messagesPerAddress });
          callback(refusal);
        })
        .catch((error) => callback(error instanceof Error ? Object.assign(error, { responseCode: 451 }) : smtpError(451, "Please try again later")));
    },
    onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, callback) {
      resolveRecipient(deps, domain, address.address)
        .then(async (found) => {
          if ("refuse" in found) {
            deps.log.info("smtp_recipient_refused", { domain: address.address.split("@").pop()?.toLowerCase() });
            return callback(found.refuse);
          }
          const refusal = await withinRate(deps, "smtp-messages-token", found.token, limits.messagesPerToken, limits.windowSeconds, 450, "Too many messages for this report address");
          if (refusal) deps.log.warn("smtp_rate_limited", { org: found.orgId, per: "recipient", limit: limits.messagesPerToken, remote: session.remoteAddress });
          callback(refusal);
        })
        .catch((error) => callback(error instanceof Error ? Object.assign(error, { responseCode: 451 }) : smtpError(451, "Please try again later")));
    },
    onData(stream, session, callback) {
      const started = performance.now();
      readBounded(stream, options.maxBytes)
        .then(async (bytes) => {
          const recipients = await Promise.all(session.envelope.rcptTo.map((r) => resolveRecipient(deps, domain, r.address)));
          const orgIds = [...new Set(recipients.flatMap((r) => ("orgId" in r ? [r.orgId] : [])))];
          if (!bytes) {
            deps.log.warn("smtp_message", { orgs: orgIds, status: "too_large", limit: options.maxBytes, remote: session.remoteAddress });
            return callback(smtpError(552, `Message too big: the limit is ${options.maxBytes} bytes`));
          }
          const results: IngestResult[] = [];
          for (const orgId of orgIds) {
            results.push(await ingest(deps, { orgId, fileName: `smtp-${session.id}.eml`, bytes, source: "smtp" }));
          }
          const reply = replyFor(results);
          deps.log.info("smtp_message", {
            orgs: orgIds,
            bytes: bytes.length,
            status: results.map((r) => r.status),
            kind: results.map((r) => r.kind),
            reports: results.reduce((n, r) => n + r.reports.length, 0),
            reason: reply.error ? results[0]?.error : undefined,
            tls: session.secure,
            remote: session.remoteAddress,
            ms: Math.round(performance.now() - started),
          });
          callback(reply.error ?? null, reply.message);
        })
        .catch((error) => {
          deps.log.error("smtp_message_failed", { remote: session.remoteAddress, error: error instanceof Error ? error.message : String(error) });
          // temporary: the sender's MTA will try again later
          callback(smtpError(451, "Could not store the report right now; please try again later"));
        });
    },
  });
  server.on("error", (error) => deps.log.error("smtp_error", { error: error.message }));

  return new Promise((resolve, reject) => {
    const onListenError = (error: Error) => reject(error);
    server.server.once("error", onListenError);
    server.listen(options.port, options.host, () => {
      server.server.off("error", onListenError);
      const address = server.server.address();
      const port = typeof address === "object" && address ? address.port : options.port;
      deps.log.info("smtp_listening", { host: options.host, port, domain, starttls: !!options.tls, maxBytes: options.maxBytes });
      resolve({
        port,
        stop: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
