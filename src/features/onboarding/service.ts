/**
 * The getting-started checklist (src/lib/onboarding.ts) from real state: the organization's
 * domains (their rows and last DNS check), the daily roll-ups of its reports and how it
 * receives reports. Reads indexed rows and roll-ups only, never raw report records.
 */
import type { OrgContext } from "../../http/access";
import { ConflictError } from "../../http/errors";
import { onboardingSteps, PASS_WINDOW_DAYS } from "../../lib/onboarding";
import { reportPath, type ReportPath } from "../../lib/report-path";
import { listDomains, statusHistoryOf } from "../domains/service";
import { reportDestination } from "../mailin/destination";
import { dailyTotals } from "../reports/daily";
import { dismissOnboarding, onboardingDismissedAt } from "../settings/onboarding-dismissal";
import { CHECKLIST_NOT_DONE, type OnboardingView } from "./contract";

const DAY_MS = 86_400_000;

export async function onboarding(ctx: OrgContext): Promise<OnboardingView> {
  const orgId = ctx.actor.orgId;
  const now = ctx.now();
  const today = Math.floor(now.getTime() / DAY_MS);
  const [domains, history, destination, days, dismissedAt] = await Promise.all([
    listDomains(ctx),
    statusHistoryOf(ctx, orgId, now),
    reportDestination(ctx),
    dailyTotals(ctx, orgId, { domainId: null, fromDay: today - (PASS_WINDOW_DAYS - 1), toDay: today }),
    onboardingDismissedAt(ctx),
  ]);
  const recent = days.reduce((sum, d) => ({ messages: sum.messages + d.messages, passed: sum.passed + d.passed }), { messages: 0, passed: 0 });
  const steps = onboardingSteps({
    domains: domains.map((d) => ({
      id: d.id,
      name: d.name,
      dmarcPolicy: d.dmarcPolicy,
      dmarcRecord: history.get(d.id)?.at(-1)?.dmarcRecord ?? null,
      lastReportAt: d.lastReportAt ? new Date(d.lastReportAt) : null,
    })),
    destination,
    recent,
  });
  const complete = steps.every((s) => s.done);
  const paths = domains.map((d) => reportPath(d.name, destination));
  return { steps, complete, dismissed: complete && dismissedAt !== null, mode: reportPath("example.com", destination).mode, paths };
}

/** Puts the checklist away for the organization; refused while a step is open. */
export async function dismissChecklist(ctx: OrgContext): Promise<OnboardingView> {
  const view = await onboarding(ctx);
  if (!view.complete) throw new ConflictError(CHECKLIST_NOT_DONE);
  await dismissOnboarding(ctx);
  return { ...view, dismissed: true };
}

/** Where reports for `domain` (monitored or not yet) should go. */
export async function reportPathOf(ctx: OrgContext, domain: string): Promise<ReportPath> {
  return reportPath(domain, await reportDestination(ctx));
}
