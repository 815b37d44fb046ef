/**
 * The organisation's report mailbox: settings (password sealed with the server key), the
 * connection test, and polling every configured mailbox into ingestion.
 */
import { eq } from "drizzle-orm";
import type { DB } from "../../db";
import { organizations, reportMailboxes, type ReportMailbox } from "../../db/schema";
import type { AppDeps } from "../../deps";
import { NotFoundError, ValidationError } from "../../http/errors";
import type { IngestInput, IngestResult } from "../reports/ingest";
import { MAILBOX_MESSAGES, mailboxUnreachable, type MailboxInput, type MailboxTestResult, type MailboxView, type ReportAddress } from "./contract";
import { ImapProblem, pollImapFolder, testImapConnection, type ImapSettings, type PollOutcome } from "./imap-client";
import { mailboxAddress } from "./mailbox-address";
import { decryptSecret, encryptSecret, SecretKeyError } from "./secret-box";
import { serverKey } from "./server-key";

/** The ingestion entry point (src/features/reports/ingest.ts), passed in so transports stay testable. */
export type IngestFn = (deps: AppDeps, input: IngestInput) => Promise<IngestResult>;

export const DEFAULT_MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

export function maxMessageBytes(deps: AppDeps): number {
  const configured = deps.config.smtpMaxBytes;
  return typeof configured === "number" && configured > 0 ? configured : DEFAULT_MAX_MESSAGE_BYTES;
}

/** `<token>@<smtp-domain>` when the SMTP receiver is on, else null. */
export function reportAddress(deps: AppDeps, orgId: string): ReportAddress {
  const domain = deps.config.smtpDomain.toLowerCase();
  const port = deps.config.smtpPort;
  if (!domain || !port) return { address: null };
  const org = deps.store.db.select({ token: organizations.reportToken }).from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) throw new NotFoundError("This organisation no longer exists.");
  const address = `${org.token}@${domain}`;
  return { address, rua: `mailto:${address}`, ruf: `mailto:${address}` };
}

function view(row: ReportMailbox): MailboxView {
  return {
    host: row.host,
    port: row.port,
    tls: row.tls,
    username: row.username,
    folder: row.folder,
    hasPassword: true,
    lastPolledAt: row.lastPolledAt ? row.lastPolledAt.toISOString() : null,
    lastError: row.lastError,
    lastPollMessages: row.lastPollMessages,
  };
}

function findMailbox(db: DB, orgId: string): ReportMailbox | undefined {
  return db.select().from(reportMailboxes).where(eq(reportMailboxes.orgId, orgId)).get();
}

export function getMailbox(deps: AppDeps, orgId: string): MailboxView | null {
  const row = findMailbox(deps.store.db, orgId);
  return row ? view(row) : null;
}

type ParsedMailboxInput = Omit<MailboxInput, "password"> & { password?: string };

export function saveMailbox(deps: AppDeps, orgId: string, input: ParsedMailboxInput): MailboxView {
  const db = deps.store.db;
  const existing = findMailbox(db, orgId);
  const password = input.password ?? "";
  if (!password && !existing) throw new ValidationError(MAILBOX_MESSAGES.password, { password: MAILBOX_MESSAGES.password });
  const passwordEncrypted = password ? encryptSecret(serverKey(deps), password, orgId) : existing!.passwordEncrypted;
  const values = { host: input.host, port: input.port, tls: input.tls, username: input.username, folder: input.folder, passwordEncrypted, updatedAt: deps.now(), lastError: null };
  const row = db
    .insert(reportMailboxes)
    .values({ orgId, ...values })
    .onConflictDoUpdate({ target: reportMailboxes.orgId, set: values })
    .returning()
    .get();
  return view(row);
}

export function deleteMailbox(deps: AppDeps, orgId: string): void {
  const removed = deps.store.db.delete(reportMailboxes).where(eq(reportMailboxes.orgId, orgId)).returning({ orgId: reportMailboxes.orgId }).all();
  if (!removed.length) throw new NotFoundError("No report mailbox is configured for this organisation.");
}

/** The settings with the address the connection must go to, once the host is checked (mailbox-address.ts). */
async function checkedSettings(deps: AppDeps, settings: ImapSettings): Promise<ImapSettings> {
  const found = await mailboxAddress(deps, settings.host);
  if (!found.ok) throw new ImapProblem(found.reason);
  return { ...settings, address: found.address };
}

/**
 * What the user is told about a failed connection: one message whatever went wrong (refused
 * address, closed port, timeout, TLS, sign-in), so the answer never tells an open port from a
 * closed one; the detail goes to the server log. A missing folder needs a working sign-in and
 * is said as it is. Null for errors that are not about the mailbox.
 */
function mailboxProblem(deps: AppDeps, orgId: string, settings: ImapSettings, error: unknown, event: string): string | null {
  if (!(error instanceof ImapProblem)) return null;
  if (error.folderMissing) return error.message;
  deps.log.warn(event, { org: orgId, host: settings.host, port: settings.port, tls: settings.tls, detail: error.message });
  return mailboxUnreachable(settings);
}

function settingsOf(deps: AppDeps, row: ReportMailbox): ImapSettings {
  return { host: row.host, port: row.port, tls: row.tls, username: row.username, folder: row.folder, password: decryptSecret(serverKey(deps), row.passwordEncrypted, row.orgId) };
}

/**
 * Tests the submitted settings (a blank password means the stored one), or the stored
 * mailbox when nothing is submitted.
 */
export async function testMailbox(deps: AppDeps, orgId: string, input: ParsedMailboxInput | null): Promise<MailboxTestResult> {
  const existing = findMailbox(deps.store.db, orgId);
  let settings: ImapSettings;
  try {
    if (input) {
      const password = input.password || (existing ? decryptSecret(serverKey(deps), existing.passwordEncrypted, orgId) : "");
      if (!password) throw new ValidationError(MAILBOX_MESSAGES.password, { password: MAILBOX_MESSAGES.password });
      settings = { host: input.host, port: input.port, tls: input.tls, username: input.username, folder: input.folder, password };
    } else {
      if (!existing) throw new NotFoundError("No report mailbox is configured for this organisation.");
      settings = settingsOf(deps, existing);
    }
  } catch (error) {
    if (error instanceof SecretKeyError) return { ok: false, error: error.message };
    throw error;
  }
  try {
    const { messages, unseen } = await testImapConnection(await checkedSettings(deps, settings));
    return { ok: true, folder: settings.folder, messages, unseen };
  } catch (error) {
    const problem = mailboxProblem(deps, orgId, settings, error, "imap_test_failed");
    if (problem) return { ok: false, error: problem };
    throw error;
  }
}

export type PollResult = { ok: true; outcome: PollOutcome } | { ok: false; error: string };

/** Polls in progress, by organisation: a "Check now" during a scheduled poll joins it instead of racing it. */
const polling = new Map<string, Promise<PollResult>>();

/** Polls one organisation's mailbox and records the outcome on its row. Never throws. */
export function pollMailbox(deps: AppDeps, orgId: string, ingest: IngestFn): Promise<PollResult> {
  const running = polling.get(orgId);
  if (running) return running;
  const poll = pollOnce(deps, orgId, ingest).finally(() => polling.delete(orgId));
  polling.set(orgId, poll);
  return poll;
}

async function pollOnce(deps: AppDeps, orgId: string, ingest: IngestFn): Promise<PollResult> {
  const db = deps.store.db;
  const row = findMailbox(db, orgId);
  if (!row) return { ok: false, error: "No report mailbox is configured for this organisation." };
  const startedAt = deps.now();
  let result: PollResult;
  let settings: ImapSettings | null = null;
  try {
    let lastFailure: string | null = null;
    settings = settingsOf(deps, row);
    const outcome = await pollImapFolder(
      await checkedSettings(deps, settings),
      async ({ uid, bytes }) => {
        try {
          const ingested = await ingest(deps, { orgId, fileName: `imap-${uid}.eml`, bytes, source: "imap" });
          deps.log.info("imap_message", { org: orgId, uid, bytes: bytes.length, status: ingested.status, kind: ingested.kind, reports: ingested.reports.length, reason: ingested.error });
          // a report that could not be stored stays unseen in the folder for the next poll
          if (ingested.code === "unavailable") {
            lastFailure = ingested.error ?? "the report could not be stored";
            return "retry";
          }
          return ingested.status === "rejected" ? "invalid" : "processed";
        } catch (error) {
          lastFailure = error instanceof Error ? error.message : String(error);
          deps.log.error("imap_message_failed", { org: orgId, uid, bytes: bytes.length, error: lastFailure });
          return "retry";
        }
      },
      { maxBytes: maxMessageBytes(deps), onOversize: (uid, size) => deps.log.warn("imap_message_too_large", { org: orgId, uid, bytes: size }) },
    );
    result = { ok: true, outcome };
    const error = outcome.retried ? `${outcome.retried} message(s) could not be ingested and will be tried again (${lastFailure}).` : null;
    db.update(reportMailboxes).set({ lastPolledAt: startedAt, lastError: error, lastPollMessages: outcome.processed + outcome.invalid }).where(eq(reportMailboxes.orgId, orgId)).run();
  } catch (error) {
    const problem = settings && mailboxProblem(deps, orgId, settings, error, "imap_poll_failed");
    const message = problem ?? (error instanceof SecretKeyError ? error.message : `Polling failed: ${error instanceof Error ? error.message : String(error)}`);
    result = { ok: false, error: message };
    db.update(reportMailboxes).set({ lastPolledAt: startedAt, lastError: message }).where(eq(reportMailboxes.orgId, orgId)).run();
  }
  deps.log.info("imap_poll", { org: orgId, ...(result.ok ? result.outcome : { error: result.error }) });
  return result;
}

/** Polls every configured mailbox one after another; one failing mailbox never stops the others. */
export async function pollAllMailboxes(deps: AppDeps, ingest: IngestFn): Promise<void> {
  const orgIds = deps.store.db.select({ orgId: reportMailboxes.orgId }).from(reportMailboxes).all();
  for (const { orgId } of orgIds) {
    try {
      await pollMailbox(deps, orgId, ingest);
    } catch (error) {
      deps.log.error("imap_poll_failed", { org: orgId, error: error instanceof Error ? error.message : String(error) });
    }
  }
}
