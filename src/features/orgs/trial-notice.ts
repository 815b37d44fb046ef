/**
 * "Your trial ends in 2 days": an account event raised by the scheduler for every organisation
 * whose trial ends within TRIAL_ENDING_DAYS, once per trial end date (a trial extended to a new
 * date is told again). Several nodes may look at once: recording is one transaction per
 * organisation against the one-alert-per-cause conditions, so the event is stored once.
 */
import type { ServiceContext } from "../../http/access";
import { trialEndingEvent, trialEndsSoon } from "../../lib/alerts/account-events";
import { recordEvents } from "../alerts/events";
import { allOrganizations } from "./audience";

/** Raises the trial-ending event where it is due at `now`. Returns the organisations told now. */
export async function raiseTrialEndings(deps: Pick<ServiceContext, "store" | "now">, now: Date = deps.now()): Promise<string[]> {
  const told: string[] = [];
  for (const org of await allOrganizations(deps)) {
    if (org.planStatus !== "trialing" || !trialEndsSoon(org.trialEndsAt, now)) continue;
    const recorded = await recordEvents({ store: deps.store, now: () => now }, org.id, [trialEndingEvent(org.trialEndsAt)]);
    if (recorded.length) told.push(org.id);
  }
  return told;
}
