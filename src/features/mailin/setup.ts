/**
 * Starts what `serve` runs for report mail: the server key for stored mailbox passwords,
 * the SMTP receiver (when --smtp-port is set) and the mailbox poller (every
 * --imap-poll-interval minutes). A bad setting stops start-up with one ConfigError line.
 */
import { readFileSync } from "node:fs";
import { ConfigError } from "../../config";
import type { AppDeps } from "../../deps";
import { startMailboxPoller, type MailboxPoller } from "./poller";
import { SecretKeyError } from "./secret-box";
import { keyFilePath, loadServerKey } from "./server-key";
import { maxMessageBytes, type IngestFn } from "./service";
import { smtpLimitsFromConfig } from "./smtp-limits";
import { startSmtpReceiver, type SmtpReceiver } from "./smtp-receiver";

function readPem(flag: string, path: string): string {
  try {
    const text = readFileSync(path, "utf8");
    if (!text.includes("-----BEGIN")) throw new Error("not a PEM file");
    return text;
  } catch (error) {
    throw new ConfigError(`--${flag} ${path}: cannot read it (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** The ingestion service (parsers, decompressors, the routing's suffix list), loaded with the first report. */
const ingestFile: IngestFn = async (deps, input) => (await import("../reports/ingest")).ingestFile(deps, input);

export async function startMailIn(deps: AppDeps, ingest: IngestFn = ingestFile): Promise<{ smtp: SmtpReceiver | null; stop(): Promise<void> }> {
  const config = deps.config;
  const port = config.smtpPort;
  const domain = config.smtpDomain;
  const certFile = config.smtpTlsCert;
  const keyFile = config.smtpTlsKey;
  let smtp: SmtpReceiver | null = null;
  let tls: { cert: string; key: string } | null = null;
  // every setting is checked before anything is written or started
  if (port) {
    if (!domain) throw new ConfigError("--smtp-port needs --smtp-domain (SMTP_DOMAIN): the domain of the report addresses, whose MX points at this server");
    if (!certFile !== !keyFile) throw new ConfigError("--smtp-tls-cert and --smtp-tls-key go together: give both for STARTTLS, or neither");
    tls = certFile ? { cert: readPem("smtp-tls-cert", certFile), key: readPem("smtp-tls-key", keyFile) } : null;
  }

  try {
    const { key, source } = loadServerKey(deps.config);
    deps.secretKey = key;
    if (source === "generated") deps.log.info("server_key_created", { file: keyFilePath(deps.config.db), hint: "back this file up with the database: it decrypts stored mailbox passwords" });
  } catch (error) {
    if (error instanceof SecretKeyError)
      throw new ConfigError(config.secretKey ? `--secret-key (SECRET_KEY): ${error.message}` : `server key ${error.message} — restore the key file from your backup, or give the key with --secret-key`);
    throw error;
  }

  if (port) {
    try {
      smtp = await startSmtpReceiver(deps, ingest, { port, host: config.smtpHost || "0.0.0.0", domain, maxBytes: maxMessageBytes(deps), tls, limits: smtpLimitsFromConfig(config) });
    } catch (error) {
      throw new ConfigError(`--smtp-port ${port}: cannot listen (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  const interval = config.imapPollInterval;
  const poller: MailboxPoller | null = interval > 0 ? startMailboxPoller(deps, ingest, interval) : null;

  return {
    smtp,
    async stop() {
      await poller?.stop();
      await smtp?.stop();
    },
  };
}
