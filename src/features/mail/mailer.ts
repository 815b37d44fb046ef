/**
 * Outgoing mail through the configured SMTP relay (nodemailer). One transport is kept for
 * the process; each send is a plain text + simple HTML message with no tracking.
 */
import type Nodemailer from "nodemailer";
import type { Config } from "../../config";
import type { Logger } from "../../log";
import { mailSettings, type MailSettings } from "./settings";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments?: { filename: string; content: Uint8Array; contentType: string }[];
  /** the sender's display name instead of --mail-from's (white-label); the address stays --mail-from's */
  fromName?: string;
  /** where replies go (a client report's MSP support address) */
  replyTo?: string;
}

/** --mail-from with another display name: `Name <address>` (the name quoted by nodemailer). */
export function fromWithName(from: string, name: string | undefined): string | { name: string; address: string } {
  if (!name) return from;
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
  return { name, address };
}

export interface Mailer {
  /** the public address links in mail point at (no trailing slash) */
  readonly publicUrl: string;
  /** resolves once the relay accepted the message; rejects when it did not */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function createMailer(settings: MailSettings): Mailer {
  const { relay } = settings;
  // nodemailer loads with the first message rather than at every start
  let transport: Promise<ReturnType<typeof Nodemailer.createTransport>> | null = null;
  const transportOf = () =>
    (transport ??= import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: relay.host,
        port: relay.port,
        secure: relay.secure,
        auth: relay.auth ?? undefined,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
        logger: false,
        debug: false,
      }),
    ));
  return {
    publicUrl: settings.publicUrl,
    async send(message) {
      const attachments = message.attachments?.map((a) => ({ filename: a.filename, content: Buffer.from(a.content), contentType: a.contentType }));
      const info = await (await transportOf()).sendMail({ from: fromWithName(settings.from, message.fromName), to: message.to, ...(message.replyTo ? { replyTo: message.replyTo } : {}), subject: message.subject, text: message.text, html: message.html, attachments });
      if (!info.accepted?.length) throw new Error(`the relay refused ${message.to}: ${String(info.response ?? "")}`);
    },
    close: () => void transport?.then((t) => t.close()),
  };
}

/** The mailer when --mail-relay is set, else undefined (mail off). Throws ConfigError on a bad setting. */
export function mailerFromConfig(config: Config, log: Logger): Mailer | undefined {
  const settings = mailSettings(config);
  if (!settings) return undefined;
  // host and port only: the relay URL may carry a password
  log.info("mail_relay_configured", { host: settings.relay.host, port: settings.relay.port, tls: settings.relay.secure ? "smtps" : "starttls-when-offered", from: settings.from });
  return createMailer(settings);
}

/**
 * Sends without making the caller wait or fail: for mail whose loss must not undo what
 * happened (a trial account, a password link). Failures are logged without the link.
 */
export function sendInBackground(mailer: Mailer, log: Logger, kind: string, message: MailMessage): void {
  mailer.send(message).then(
    () => log.info("mail_sent", { kind }),
    (error: unknown) => log.warn("mail_failed", { kind, error: error instanceof Error ? error.message : String(error) }),
  );
}
