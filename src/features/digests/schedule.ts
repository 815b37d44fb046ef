/**
 * Sending the weekly digest: to the organisation's owners and admins whose address is verified,
 * as a mail with the same digest attached as a PDF, on the day and hour (UTC) its settings name.
 * Once per ISO week per organisation however many app nodes share the database: the node that
 * claims the lease `digest:<org>:<ISO week>` (held longer than a week) sends it; a send that
 * reached nobody because the relay failed gives the lease back so the next tick tries again.
 * Every plan gets the digest (Essentials sells "weekly compliance/DMARC reports").
 *
 * With it, on the same schedule (issue 17, client reports):
 * - a client organization's digest also goes to the outside contacts its managing organization
 *   chose (src/features/portfolio/client-reports.ts): one mail per contact, no link into the app,
 *   the MSP's branding; once per ISO week per contact (lease `client-report:<client>:<week>:<address>`,
 *   given back when the relay refused that address so a later tick of the day tries again);
 * - an organization with clients gets the portfolio digest: every client with the figures of
 *   GET /api/portfolio (the same function), attention first; once per ISO week (lease
 *   `portfolio-digest:<org>:<week>`).
 */
import { claimLease, leasesHeld, releaseLease } from "../../db/leases";
import type { ServiceContext } from "../../http/access";
import type { DigestModel } from "../../lib/alerts/digest";
import { periodic } from "../../lib/periodic";
import type { MailMessage, Mailer } from "../mail/mailer";
import type { PortfolioDigestModel } from "../../lib/alerts/portfolio-digest";
import { digestMail, portfolioDigestMail } from "../mail/templates";
import { brandingFor, mailBaseFor } from "../branding/service";
import { allOrganizations, organizationInfo, type OrganizationInfo, verifiedEmailsOf } from "../orgs/audience";
import { clientReportAudience, recordClientReportResult } from "../portfolio/client-reports";
import { portfolio } from "../portfolio/service";
import { raiseTrialEndings } from "../orgs/trial-notice";
import type { DigestSchedule } from "../settings/contract";
import { digestSchedulesOf } from "../settings/service";
import { buildDigest, digestWeek, isoWeek, readerContext, type BuildOptions } from "./service";

/** A digest lease outlives its week, so the same week is never sent twice. */
export const DIGEST_LEASE_SECONDS = 8 * 86_400;
/** How often the scheduler looks for digests due. */
export const DIGEST_TICK_MS = 5 * 60_000;

/** Whether the schedule says the digest goes out at `now`: on its day, from its hour until the day ends (a node down at the hour catches up). */
export function digestDue(schedule: DigestSchedule, now: Date): boolean {
  return schedule.digestEnabled && now.getUTCDay() === schedule.digestDay && now.getUTCHours() >= schedule.digestHour;
}

export const digestLeaseKey = (orgId: string, now: Date) => `digest:${orgId}:${isoWeek(now)}`;
export const clientReportLeaseKey = (clientId: string, now: Date, to: string) => `client-report:${clientId}:${isoWeek(now)}:${to.toLowerCase()}`;
export const portfolioDigestLeaseKey = (orgId: string, now: Date) => `portfolio-digest:${orgId}:${isoWeek(now)}`;

export interface DigestSendResult {
  digest: DigestModel;
  /** addresses the relay accepted */
  sent: string[];
  /** addresses it refused, with why */
  failed: { to: string; error: string }[];
}

type SendDeps = ServiceContext & { mailer: Mailer };

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** White-label: the organisation's own or its MSP's branding on the mail and the PDF; null for the default. */
async function brandOf(deps: ServiceContext, orgId: string) {
  const inForce = await brandingFor(deps, orgId);
  return inForce.source === "default" ? null : inForce;
}

/** Who a send reached: the addresses the relay accepted, and those it refused with why. */
export type SendOutcome = Omit<DigestSendResult, "digest">;

/**
 * Mails each address its own message, one after another; a refused address is recorded and the
 * others still get theirs. `claim` (a lease) may skip an address; `refused` runs for an address
 * the relay refused (e.g. to give its lease back).
 */
async function sendEach(
  deps: SendDeps,
  recipients: string[],
  mail: (to: string) => MailMessage,
  hooks: { claim?: (to: string) => Promise<boolean>; refused?: (to: string) => Promise<void> } = {},
): Promise<SendOutcome> {
  const outcome: SendOutcome = { sent: [], failed: [] };
  for (const to of recipients) {
    if (hooks.claim && !(await hooks.claim(to))) continue;
    try {
      await deps.mailer.send(mail(to));
      outcome.sent.push(to);
    } catch (error) {
      await hooks.refused?.(to);
      outcome.failed.push({ to, error: message(error) });
    }
  }
  return outcome;
}

/** Builds one organisation's digest and mails it now to its verified owners and admins (or to `to`). */
export async function sendDigest(deps: SendDeps, orgId: string, options: BuildOptions & { to?: string[] } = {}): Promise<DigestSendResult> {
  const digest = await buildDigest(deps, orgId, options);
  // pdf-lib loads with the first digest, not at start
  const { renderDigestPdf } = await import("../../lib/alerts/digest-pdf");
  const brand = await brandOf(deps, orgId);
  const pdf = await renderDigestPdf(digest, brand);
  const recipients = options.to ?? (await verifiedEmailsOf(deps, orgId)).map((r) => r.email);
  return { digest, ...(await sendEach(deps, recipients, (to) => digestMail({ to, digest, pdf, brand }))) };
}

/**
 * A client organisation's weekly report to its outside contacts (those its managing organisation
 * chose and switched on), each contact its own mail, skipping the contacts already sent this
 * week. The same digest and PDF as the client's members get, with no link into the app (the
 * contacts cannot sign in): replies go to the MSP's support address, else to its first owner or
 * admin. Failures are recorded on the client's report settings and logged, never thrown.
 */
export async function sendClientReport(deps: SendDeps, client: OrganizationInfo, now: Date): Promise<SendOutcome | null> {
  if (!client.parentId) return null;
  const contacts = await clientReportAudience(deps, client.id);
  if (!contacts.length) return null;
  const held = await leasesHeld(deps.store, contacts.map((to) => clientReportLeaseKey(client.id, now, to)), now);
  const due = contacts.filter((to) => !held.has(clientReportLeaseKey(client.id, now, to)));
  if (!due.length) return { sent: [], failed: [] };

  const digest = { ...(await buildDigest(deps, client.id, { week: digestWeek(now) })), link: "" };
  const { renderDigestPdf } = await import("../../lib/alerts/digest-pdf");
  const brand = await brandOf(deps, client.id);
  const pdf = await renderDigestPdf(digest, brand);
  const parent = await organizationInfo(deps, client.parentId);
  const sender = brand?.productName ?? parent?.name ?? "Your service provider";
  const replyTo = brand?.supportEmail ?? (await verifiedEmailsOf(deps, client.parentId))[0]?.email ?? null;
  const result = await sendEach(deps, due, (to) => digestMail({ to, digest, pdf, brand, contact: { sender, replyTo } }), {
    claim: (to) => claimLease(deps.store, clientReportLeaseKey(client.id, now, to), DIGEST_LEASE_SECONDS, now),
    // not sent: any node may try this address again at a later tick of the day
    refused: (to) => releaseLease(deps.store, clientReportLeaseKey(client.id, now, to)),
  });
  await recordClientReportResult(deps, client.id, now, result);
  deps.log.info("client_report_sent", { org: client.id, week: isoWeek(now), sent: result.sent.length, failed: result.failed.length });
  for (const f of result.failed) deps.log.warn("client_report_mail_failed", { org: client.id, error: f.error });
  return result;
}

/** The portfolio digest's model: GET /api/portfolio's figures for every client, as the organisation's owner sees them at `now`. */
export async function buildPortfolioDigest(deps: ServiceContext, orgId: string, now: Date): Promise<PortfolioDigestModel | null> {
  const org = await organizationInfo(deps, orgId);
  if (!org || org.parentId) return null;
  const { clients } = await portfolio({ ...readerContext(deps, orgId), now: () => now });
  return { organization: { name: org.name }, period: { start: new Date(now.getTime() - 7 * 86_400_000), end: now }, clients, link: `${await mailBaseFor(deps, org.id)}/app/portfolio` };
}

/** Mails the portfolio digest now to the organisation's verified owners and admins (or to `to`). Null when it has no clients. */
export async function sendPortfolioDigest(deps: SendDeps, orgId: string, now: Date, options: { to?: string[] } = {}): Promise<(SendOutcome & { digest: PortfolioDigestModel }) | null> {
  const digest = await buildPortfolioDigest(deps, orgId, now);
  if (!digest || !digest.clients.length) return null;
  const brand = await brandOf(deps, orgId);
  const recipients = options.to ?? (await verifiedEmailsOf(deps, orgId)).map((r) => r.email);
  return { digest, ...(await sendEach(deps, recipients, (to) => portfolioDigestMail({ to, digest, brand }))) };
}

/** Sends every digest due at `now` that no node has sent this week. Returns the organisations this call sent for. */
export async function runDueDigests(deps: SendDeps, now: Date = deps.now()): Promise<{ orgId: string; result: DigestSendResult }[]> {
  const orgs = await allOrganizations(deps);
  const schedules = await digestSchedulesOf(
    deps,
    orgs.map((o) => o.id),
  );
  const clientCount = new Map<string, number>();
  for (const o of orgs) if (o.parentId) clientCount.set(o.parentId, (clientCount.get(o.parentId) ?? 0) + 1);
  const done: { orgId: string; result: DigestSendResult }[] = [];
  for (const org of orgs) {
    if (!digestDue(schedules.get(org.id)!, now)) continue;
    await extrasOf(deps, org, now, clientCount.get(org.id) ?? 0);
    const key = digestLeaseKey(org.id, now);
    if (!(await claimLease(deps.store, key, DIGEST_LEASE_SECONDS, now))) continue;
    try {
      const result = await sendDigest(deps, org.id, { week: digestWeek(now) });
      if (result.sent.length === 0 && result.failed.length > 0) await releaseLease(deps.store, key);
      deps.log.info("digest_sent", { org: org.id, week: isoWeek(now), sent: result.sent.length, failed: result.failed.length });
      for (const f of result.failed) deps.log.warn("digest_mail_failed", { org: org.id, error: f.error });
      done.push({ orgId: org.id, result });
    } catch (error) {
      await releaseLease(deps.store, key);
      deps.log.error("digest_failed", { org: org.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return done;
}

/** With an organisation's due digest: a client's report to its contacts, an MSP's portfolio digest. Logged, never thrown. */
async function extrasOf(deps: SendDeps, org: OrganizationInfo, now: Date, clients: number): Promise<void> {
  try {
    if (org.parentId) await sendClientReport(deps, org, now);
  } catch (error) {
    deps.log.error("client_report_failed", { org: org.id, error: message(error) });
  }
  if (org.parentId || !clients) return;
  const key = portfolioDigestLeaseKey(org.id, now);
  if (!(await claimLease(deps.store, key, DIGEST_LEASE_SECONDS, now))) return;
  try {
    const result = await sendPortfolioDigest(deps, org.id, now);
    if (result && result.sent.length === 0 && result.failed.length > 0) await releaseLease(deps.store, key);
    deps.log.info("portfolio_digest_sent", { org: org.id, week: isoWeek(now), sent: result?.sent.length ?? 0, failed: result?.failed.length ?? 0 });
    for (const f of result?.failed ?? []) deps.log.warn("portfolio_digest_mail_failed", { org: org.id, error: f.error });
  } catch (error) {
    await releaseLease(deps.store, key);
    deps.log.error("portfolio_digest_failed", { org: org.id, error: message(error) });
  }
}

/**
 * Every few minutes (and once at start): trials ending in 2 days become account events, and due
 * digests are sent — the digests only with a mail relay (without one there is no way to send).
 * Returns the scheduler, to stop on shutdown.
 */
export function startDigestScheduler(deps: ServiceContext, tickMs = DIGEST_TICK_MS): { stop(): Promise<void> } {
  const mailer = deps.mailer;
  return periodic({
    everyMs: tickMs,
    firstAfterMs: "now",
    run: async () => {
      const told = await raiseTrialEndings(deps);
      if (told.length) deps.alertsQueued?.();
      if (mailer) await runDueDigests({ ...deps, mailer });
    },
    onError: (error) => deps.log.error("digest_scheduler_failed", { error: message(error) }),
  });
}
