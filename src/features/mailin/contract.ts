import { z } from "zod";

/**
 * The organisation's report mailbox (IMAP), shared by PUT /api/settings/mailbox and the
 * settings form. A blank password keeps the stored one; the server never sends it back.
 */
export const MAILBOX_MESSAGES = {
  host: "Enter the IMAP server's host name, e.g. imap.example.com",
  port: "Enter a port from 1 to 65535 (usually 993 with TLS, 143 without)",
  username: "Enter the mailbox user name",
  password: "Enter the mailbox password",
  folder: "Enter the folder to read, e.g. INBOX",
} as const;

const HOST = /^(?=.{1,253}$)(([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*|\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-f:]+\]?)$/i;

export const mailboxInputSchema = z.object({
  host: z.string({ error: MAILBOX_MESSAGES.host }).trim().min(1, MAILBOX_MESSAGES.host).max(253, MAILBOX_MESSAGES.host).regex(HOST, MAILBOX_MESSAGES.host),
  port: z.number({ error: MAILBOX_MESSAGES.port }).int(MAILBOX_MESSAGES.port).min(1, MAILBOX_MESSAGES.port).max(65535, MAILBOX_MESSAGES.port),
  tls: z.boolean({ error: "TLS must be on or off" }),
  username: z.string({ error: MAILBOX_MESSAGES.username }).trim().min(1, MAILBOX_MESSAGES.username).max(320, "User name must be at most 320 characters"),
  /** blank or absent: keep the stored password */
  password: z.string({ error: MAILBOX_MESSAGES.password }).max(1024, "Password must be at most 1,024 characters").optional(),
  folder: z
    .string({ error: MAILBOX_MESSAGES.folder })
    .trim()
    .min(1, MAILBOX_MESSAGES.folder)
    .max(200, "Folder must be at most 200 characters")
    .refine((v) => v !== "Processed" && v !== "Invalid", "Processed and Invalid are where read messages are moved; choose the folder reports arrive in"),
});

export type MailboxInput = z.input<typeof mailboxInputSchema>;

/** GET /api/settings/mailbox → { mailbox: MailboxView | null } */
export interface MailboxView {
  host: string;
  port: number;
  tls: boolean;
  username: string;
  folder: string;
  hasPassword: true;
  lastPolledAt: string | null;
  lastError: string | null;
  lastPollMessages: number | null;
}

/** POST /api/settings/mailbox/test */
export type MailboxTestResult = { ok: true; folder: string; messages: number; unseen: number } | { ok: false; error: string };

/** POST /api/settings/mailbox/poll ("Check now") */
export type MailboxPollResult = ({ ok: true; outcome: { processed: number; invalid: number; retried: number } } | { ok: false; error: string }) & { mailbox: MailboxView | null };

/** GET /api/settings/report-address */
export type ReportAddress = { address: string; rua: string; ruf: string } | { address: null };

/**
 * The one answer to a mailbox that cannot be reached or signed in to, whatever the cause, so it
 * never tells an open port from a closed one (the cause is in the server log).
 */
export function mailboxUnreachable(mailbox: { host: string; port: number }): string {
  return `Could not connect and sign in to the mailbox at ${mailbox.host}:${mailbox.port}. Check the host, the port, the TLS setting, the user name and the password. The mailbox must be on a public address this server can reach.`;
}

/** Connection tests reach out to a host the user names: a few a minute per organisation. */
export const MAILBOX_TEST_RATE_LIMIT = { limit: 10, windowSeconds: 60 } as const;
