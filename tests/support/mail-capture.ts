/**
 * A real SMTP server on 127.0.0.1 (random port) that accepts any sender and recipient (and
 * any AUTH login) and keeps every message parsed with postal-mime, so tests can point
 * --mail-relay at it and read what the product sent.
 */
import PostalMime from "postal-mime";
import { SMTPServer } from "smtp-server";

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** the AUTH user name the client logged in with, if any */
  authUser: string | null;
  attachments: { filename: string | null; mimeType: string; content: Uint8Array }[];
  raw: string;
}

export interface MailCapture {
  port: number;
  /** smtp://127.0.0.1:<port> (optionally with user:pass, which the capture accepts) */
  url(auth?: { user: string; pass: string }): string;
  messages: CapturedMail[];
  /** waits (up to timeoutMs) for a message matching the predicate that arrives or has arrived */
  waitFor(predicate: (mail: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  stop(): Promise<void>;
}

export async function startMailCapture(): Promise<MailCapture> {
  const messages: CapturedMail[] = [];
  const waiters: Array<{ predicate: (m: CapturedMail) => boolean; resolve: (m: CapturedMail) => void }> = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    disableReverseLookup: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? "" });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        try {
          const parsed = await PostalMime.parse(raw);
          const mail: CapturedMail = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? "",
            text: parsed.text ?? "",
            html: parsed.html ?? "",
            authUser: session.user ? String(session.user) : null,
            attachments: parsed.attachments.map((a) => ({ filename: a.filename, mimeType: a.mimeType, content: typeof a.content === "string" ? new TextEncoder().encode(a.content) : new Uint8Array(a.content) })),
            raw,
          };
          messages.push(mail);
          for (const w of [...waiters]) {
            if (w.predicate(mail)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(mail);
            }
          }
          callback();
        } catch (error) {
          callback(error as Error);
        }
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve((server.server.address() as { port: number }).port));
  });
  return {
    port,
    url: (auth) => `smtp://${auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : ""}127.0.0.1:${port}`,
    messages,
    waitFor(predicate, timeoutMs = 15_000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = { predicate, resolve: (m: CapturedMail) => (clearTimeout(timer), resolve(m)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching mail within ${timeoutMs} ms; got: ${messages.map((m) => `${m.to.join(",")}: ${m.subject}`).join(" | ") || "none"}`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text part that starts with `prefix` (e.g. "http://localhost/set-password"). */
export function linkIn(mail: CapturedMail, prefix: string): string {
  const link = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!link) throw new Error(`no ${prefix} link in: ${mail.text}`);
  return link;
}
