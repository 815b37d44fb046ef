/**
 * The organisation's report mailbox: settings (password sealed with the server key), the
 * connection test, and polling every configured mailbox into ingestion.
 */
import { mailboxPolls } from "../metrics/registry";
import { claimLease } from "../../db/leases";
import { eq, sql } from "drizzle-orm";
import type { ReportMailbox } from "../../db/schema";
import type { OrgContext, ServiceContext } from "../../http/access";
import { NotFoundError, ValidationError } from "../../http/errors";
import { mailboxFailingEvents, mailboxScope } from "../../lib/alerts/account-events";
import { recordEvents } from "../alerts/events";
import { reportTokenOf } from "../orgs/service";
import type { IngestInput, IngestResult, IngestSource } from "../reports/ingest";
import { MAILBOX_MESSAGES, mailboxUnreachable, type MailboxInput, type MailboxTestResult, type MailboxView, type ReportAddress } from "./contract";
import { ImapProblem, pollImapFolder, testImapConnection, type ImapSettings, type MessageVerdict, type PollOutcome } from "./imap-client";
import { mailboxAddress } from "./mailbox-address";
import { decryptSecret, encryptSecret, SecretKeyError } from "./secret-box";
import { serverKey } from "./server-key";

/** The ingestion entry point (src/features/reports/ingest.ts), passed in so transports stay testable. */
export type IngestFn = (deps: ServiceContext, input: IngestInput) => Promise<IngestResult>;

export const DEFAULT_MAX_MESSAGE_BYTES = 25 * 1024 * 1024;

export function maxMessageBytes(deps: ServiceContext): number {
  const configured = deps.config.smtpMaxBytes;
  return typeof configured === "number" && configured > 0 ? configured : DEFAULT_MAX_MESSAGE_BYTES;
}

/** `<token>@<smtp-domain>` when the SMTP receiver is on, else null. */
export async function reportAddress(ctx: OrgContext): Promise<ReportAddress> {
  const domain = ctx.config.smtpDomain.toLowerCase();
  const port = ctx.config.smtpPort;
  if (!domain || !port) return { address: null };
  const token = await reportTokenOf(ctx, ctx.actor.orgId);
  if (!token) throw new NotFoundError("This organization no longer exists.");
  const address = `${token}@${domain}`;
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

async function findMailbox(ctx: ServiceContext, orgId: string): Promise<ReportMailbox | undefined> {
  const { reportMailboxes } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(reportMailboxes).where(eq(reportMailboxes.orgId, orgId));
  return row;
}

export async function getMailbox(ctx: OrgContext): Promise<MailboxView | null> {
  const row = await findMailbox(ctx, ctx.actor.orgId);
  return row ? view(row) : null;
}

type ParsedMailboxInput = Omit<MailboxInput, "password"> & { password?: string };

export async function saveMailbox(ctx: OrgContext, input: ParsedMailboxInput): Promise<MailboxView> {
  const { reportMailboxes } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  const existing = await findMailbox(ctx, orgId);
  const password = input.password ?? "";
  if (!password && !existing) throw new ValidationError(MAILBOX_MESSAGES.password, { password: MAILBOX_MESSAGES.password });
  const passwordEncrypted = password ? encryptSecret(serverKey(ctx), password, orgId) : existing!.passwordEncrypted;
  const values = { host: input.host, port: input.port, tls: input.tls, username: input.username, folder: input.folder, passwordEncrypted, updatedAt: ctx.now(), lastError: null, consecutiveFailures: 0 };
  const [row] = await ctx.store.write((tx) =>
    tx
      .insert(reportMailboxes)
      .values({ orgId, ...values })
      .onConflictDoUpdate({ target: reportMailboxes.orgId, set: values })
      .returning(),
  );
  return view(row!);
}

export async function deleteMailbox(ctx: OrgContext): Promise<void> {
  const { reportMailboxes } = ctx.store.t;
  const removed = await ctx.store.write((tx) => tx.delete(reportMailboxes).where(eq(reportMailboxes.orgId, ctx.actor.orgId)).returning({ orgId: reportMailboxes.orgId }));
  if (!removed.length) throw new NotFoundError("No report mailbox is configured for this organization.");
}

/** The settings with the address the connection must go to, once the host is checked (mailbox-address.ts). */
async function checkedSettings(deps: ServiceContext, settings: ImapSettings): Promise<ImapSettings> {
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
function mailboxProblem(deps: ServiceContext, orgId: string, settings: ImapSettings, error: unknown, event: string): string | null {
  if (!(error instanceof ImapProblem)) return null;
  if (error.folderMissing) return error.message;
  deps.log.warn(event, { org: orgId, host: settings.host, port: settings.port, tls: settings.tls, detail: error.message });
  return mailboxUnreachable(settings);
}

function settingsOf(deps: ServiceContext, row: ReportMailbox): ImapSettings {
  return { host: row.host, port: row.port, tls: row.tls, username: row.username, folder: row.folder, password: decryptSecret(serverKey(deps), row.passwordEncrypted, row.orgId) };
}

/**
 * Tests the submitted settings (a blank password means the stored one), or the stored
 * mailbox when nothing is submitted.
 */
export async function testMailbox(deps: OrgContext, input: ParsedMailboxInput | null): Promise<MailboxTestResult> {
  const orgId = deps.actor.orgId;
  const existing = await findMailbox(deps, orgId);
  let settings: ImapSettings;
  try {
    if (input) {
      const password = input.password || (existing ? decryptSecret(serverKey(deps), existing.passwordEncrypted, orgId) : "");
      if (!password) throw new ValidationError(MAILBOX_MESSAGES.password, { password: MAILBOX_MESSAGES.password });
      settings = { host: input.host, port: input.port, tls: input.tls, username: input.username, folder: input.folder, password };
    } else {
      if (!existing) throw new NotFoundError("No report mailbox is configured for this organization.");
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

/**
 * Hands one fetched message to ingestion and says where it goes: Processed, Invalid, or
 * "retry" (left unread for the next poll) when it could not be stored — `failed` hears why.
 * Shared by the IMAP and the OAuth (Graph, Gmail) polls.
 */
export async function ingestMessage(
  deps: ServiceContext,
  ingest: IngestFn,
  message: { orgId: string; fileName: string; bytes: Uint8Array; event: string; fields: Record<string, unknown>; source?: IngestSource },
  failed: (reason: string) => void,
): Promise<MessageVerdict> {
  const { orgId, bytes } = message;
  try {
    const ingested = await ingest(deps, { orgId, fileName: message.fileName, bytes, source: message.source ?? "imap" });
    deps.log.info(message.event, { org: orgId, ...message.fields, bytes: bytes.length, status: ingested.status, kind: ingested.kind, reports: ingested.reports.length, reason: ingested.error });
    // a report that could not be stored stays unread in the folder for the next poll
    if (ingested.code === "unavailable") {
      failed(ingested.error ?? "the report could not be stored");
      return "retry";
    }
    return ingested.status === "rejected" ? "invalid" : "processed";
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    failed(reason);
    deps.log.error(`${message.event}_failed`, { org: orgId, ...message.fields, bytes: bytes.length, error: reason });
    return "retry";
  }
}

export type PollResult = { ok: true; outcome: PollOutcome } | { ok: false; error: string };

/** Polls in progress, by organisation: a "Check now" during a scheduled poll joins it instead of racing it. */
const polling = new Map<string, Promise<PollResult>>();

/** Polls one organisation's mailbox (the route's actor's, or each configured one for the scheduler) and records the outcome on its row. Never throws. */
export function pollMailbox(deps: ServiceContext, orgId: string, ingest: IngestFn): Promise<PollResult> {
  const running = polling.get(orgId);
  if (running) return running;
  const poll = pollOnce(deps, orgId, ingest)
    .then((result) => {
      mailboxPolls.inc({ outcome: result.ok ? "ok" : "error" });
      return result;
    })
    .finally(() => polling.delete(orgId));
  polling.set(orgId, poll);
  return poll;
}

async function pollOnce(deps: ServiceContext, orgId: string, ingest: IngestFn): Promise<PollResult> {
  const { reportMailboxes } = deps.store.t;
  const row = await findMailbox(deps, orgId);
  if (!row) return { ok: false, error: "No report mailbox is configured for this organization." };
  const startedAt = deps.now();
  let result: PollResult;
  let settings: ImapSettings | null = null;
  try {
    let lastFailure: string | null = null;
    settings = settingsOf(deps, row);
    const outcome = await pollImapFolder(
      await checkedSettings(deps, settings),
      ({ uid, bytes }) =>
        ingestMessage(deps, ingest, { orgId, fileName: `imap-${uid}.eml`, bytes, event: "imap_message", fields: { uid } }, (reason) => {
          lastFailure = reason;
        }),
      { maxBytes: maxMessageBytes(deps), onOversize: (uid, size) => deps.log.warn("imap_message_too_large", { org: orgId, uid, bytes: size }) },
    );
    result = { ok: true, outcome };
    const error = outcome.retried ? `${outcome.retried} message(s) could not be ingested and will be tried again (${lastFailure}).` : null;
    await deps.store.write(async (tx) => {
      await tx.update(reportMailboxes).set({ lastPolledAt: startedAt, lastError: error, lastPollMessages: outcome.processed + outcome.invalid, consecutiveFailures: 0 }).where(eq(reportMailboxes.orgId, orgId));
      // a good poll clears the "mailbox failing" condition, so a later run of failures alerts again
      await recordEvents(deps, orgId, [], { scope: mailboxScope });
    });
  } catch (error) {
    const problem = settings && mailboxProblem(deps, orgId, settings, error, "imap_poll_failed");
    const message = problem ?? (error instanceof SecretKeyError ? error.message : `Polling failed: ${error instanceof Error ? error.message : String(error)}`);
    result = { ok: false, error: message };
    await deps.store.write(async (tx) => {
      const [counted] = await tx
        .update(reportMailboxes)
        .set({ lastPolledAt: startedAt, lastError: message, consecutiveFailures: sql`${reportMailboxes.consecutiveFailures} + 1` })
        .where(eq(reportMailboxes.orgId, orgId))
        .returning({ failures: reportMailboxes.consecutiveFailures });
      // an account event at the MAILBOX_FAILURES_ALERT-th failure in a row (once, until a poll succeeds)
      if (counted) await recordEvents(deps, orgId, mailboxFailingEvents(Number(counted.failures), { host: row.host, username: row.username, lastError: message }), { scope: mailboxScope });
    });
  }
  deps.log.info("imap_poll", { org: orgId, ...(result.ok ? result.outcome : { error: result.error }) });
  return result;
}

/** Polls every configured mailbox one after another; one failing mailbox never stops the others. */
export async function pollAllMailboxes(deps: ServiceContext, ingest: IngestFn, leaseSeconds = 0): Promise<void> {
  const { reportMailboxes } = deps.store.t;
  const orgIds = await deps.store.db.select({ orgId: reportMailboxes.orgId }).from(reportMailboxes);
  for (const { orgId } of orgIds) {
    try {
      // with several app nodes, a mailbox is polled by the node that claims it for this round
      if (leaseSeconds > 0 && !(await claimLease(deps.store, `imap-poll:${orgId}`, leaseSeconds, deps.now()))) continue;
      await pollMailbox(deps, orgId, ingest);
    } catch (error) {
      deps.log.error("imap_poll_failed", { org: orgId, error: error instanceof Error ? error.message : String(error) });
    }
  }
}
