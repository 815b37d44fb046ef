/**
 * Sending the weekly digest: to the organisation's owners and admins whose address is verified,
 * as a mail with the same digest attached as a PDF, on the day and hour (UTC) its settings name.
 * Once per ISO week per organisation however many app nodes share the database: the node that
 * claims the lease `digest:<org>:<ISO week>` (held longer than a week) sends it; a send that
 * reached nobody because the relay failed gives the lease back so the next tick tries again.
 * Every plan gets the digest (Essentials sells "weekly compliance/DMARC reports").
 */
import { claimLease, releaseLease } from "../../db/leases";
import type { ServiceContext } from "../../http/access";
import type { DigestModel } from "../../lib/alerts/digest";
import type { Mailer } from "../mail/mailer";
import { digestMail } from "../mail/templates";
import { brandingFor } from "../branding/service";
import { allOrganizations, verifiedEmailsOf } from "../orgs/audience";
import { raiseTrialEndings } from "../orgs/trial-notice";
import type { DigestSchedule } from "../settings/contract";
import { digestSchedulesOf } from "../settings/service";
import { buildDigest, digestWeek, isoWeek, type BuildOptions } from "./service";

/** A digest lease outlives its week, so the same week is never sent twice. */
export const DIGEST_LEASE_SECONDS = 8 * 86_400;
/** How often the scheduler looks for digests due. */
export const DIGEST_TICK_MS = 5 * 60_000;

/** Whether the schedule says the digest goes out at `now`: on its day, from its hour until the day ends (a node down at the hour catches up). */
export function digestDue(schedule: DigestSchedule, now: Date): boolean {
  return schedule.digestEnabled && now.getUTCDay() === schedule.digestDay && now.getUTCHours() >= schedule.digestHour;
}

export const digestLeaseKey = (orgId: string, now: Date) => `digest:${orgId}:${isoWeek(now)}`;

export interface DigestSendResult {
  digest: DigestModel;
  /** addresses the relay accepted */
  sent: string[];
  /** addresses it refused, with why */
  failed: { to: string; error: string }[];
}

type SendDeps = ServiceContext & { mailer: Mailer };

/** Builds one organisation's digest and mails it now to its verified owners and admins (or to `to`). */
export async function sendDigest(deps: SendDeps, orgId: string, options: BuildOptions & { to?: string[] } = {}): Promise<DigestSendResult> {
  const digest = await buildDigest(deps, orgId, options);
  // pdf-lib loads with the first digest, not at start
  const { renderDigestPdf } = await import("../../lib/alerts/digest-pdf");
  // white-label: the organisation's own or its MSP's branding on the mail and the PDF
  const inForce = await brandingFor(deps, orgId);
  const brand = inForce.source === "default" ? null : inForce;
  const pdf = await renderDigestPdf(digest, brand);
  const recipients = options.to ?? (await verifiedEmailsOf(deps, orgId)).map((r) => r.email);
  const result: DigestSendResult = { digest, sent: [], failed: [] };
  for (const to of recipients) {
    try {
      await deps.mailer.send(digestMail({ to, digest, pdf, brand }));
      result.sent.push(to);
    } catch (error) {
      result.failed.push({ to, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}

/** Sends every digest due at `now` that no node has sent this week. Returns the organisations this call sent for. */
export async function runDueDigests(deps: SendDeps, now: Date = deps.now()): Promise<{ orgId: string; result: DigestSendResult }[]> {
  const orgs = await allOrganizations(deps);
  const schedules = await digestSchedulesOf(
    deps,
    orgs.map((o) => o.id),
  );
  const done: { orgId: string; result: DigestSendResult }[] = [];
  for (const org of orgs) {
    if (!digestDue(schedules.get(org.id)!, now)) continue;
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

/**
 * Every few minutes (and once at start): trials ending in 2 days become account events, and due
 * digests are sent — the digests only with a mail relay (without one there is no way to send).
 * Returns the scheduler, to stop on shutdown.
 */
export function startDigestScheduler(deps: ServiceContext, tickMs = DIGEST_TICK_MS): { stop(): Promise<void> } {
  const mailer = deps.mailer;
  let running: Promise<unknown> | null = null;
  let stopped = false;
  const work = async () => {
    const told = await raiseTrialEndings(deps);
    if (told.length) deps.alertsQueued?.();
    if (mailer) await runDueDigests({ ...deps, mailer });
  };
  const tick = () => {
    if (running || stopped) return;
    running = work()
      .catch((error: unknown) => deps.log.error("digest_scheduler_failed", { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => (running = null));
  };
  const timer = setInterval(tick, tickMs);
  tick();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
