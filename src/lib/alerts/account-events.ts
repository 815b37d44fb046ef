/**
 * Account events: what the server tells an organisation about its account rather than its
 * domains — the trial ends in 2 days, a payment failed, a member joined, the report mailbox
 * failed to poll several times in a row. Each is one event per cause (its dedupeKey): the
 * trial's end date, the invoice, the membership, a run of failures (cleared by a good poll).
 */
import { conditionKey, conditionScope } from "./conditions";
import type { AlertEvent } from "./events";

/** How long before a trial ends its organisation is told. */
export const TRIAL_ENDING_DAYS = 2;
/** Polls failed in a row before the mailbox counts as failing. */
export const MAILBOX_FAILURES_ALERT = 3;

export function trialEndingEvent(trialEndsAt: Date): AlertEvent {
  return { type: "account.trial_ending", domain: null, data: { trialEndsAt: trialEndsAt.toISOString() }, dedupeKey: conditionKey("account.trial_ending", null, trialEndsAt.toISOString().slice(0, 10)) };
}

/** True when a trial ending at `trialEndsAt` ends within TRIAL_ENDING_DAYS of `now` (and has not ended). */
export function trialEndsSoon(trialEndsAt: Date | null, now: Date): trialEndsAt is Date {
  if (!trialEndsAt) return false;
  const left = trialEndsAt.getTime() - now.getTime();
  return left > 0 && left <= TRIAL_ENDING_DAYS * 86_400_000;
}

export function paymentFailedEvent(invoice: { id: string; amountDue?: number | null; currency?: string | null; hostedInvoiceUrl?: string | null }): AlertEvent {
  return {
    type: "account.payment_failed",
    domain: null,
    data: { invoice: invoice.id, amountDue: invoice.amountDue ?? null, currency: invoice.currency ?? null, invoiceUrl: invoice.hostedInvoiceUrl ?? null },
    dedupeKey: conditionKey("account.payment_failed", null, invoice.id),
  };
}

export function memberJoinedEvent(member: { membershipId: string; name: string; email: string; role: string }): AlertEvent {
  return { type: "account.member_joined", domain: null, data: { name: member.name, email: member.email, role: member.role }, dedupeKey: conditionKey("account.member_joined", null, member.membershipId) };
}

/** The mailbox condition as it holds after a poll: failing (an event) or not (nothing, which clears it). */
export function mailboxFailingEvents(failuresInARow: number, mailbox: { host: string; username: string; lastError: string | null }): AlertEvent[] {
  if (failuresInARow < MAILBOX_FAILURES_ALERT) return [];
  return [{ type: "account.mailbox_failing", domain: null, data: { host: mailbox.host, username: mailbox.username, failures: failuresInARow, error: mailbox.lastError }, dedupeKey: conditionKey("account.mailbox_failing", null) }];
}

/** The keys the mailbox evaluation speaks for (so a good poll clears the condition). */
export const mailboxScope = conditionScope(null, ["account.mailbox_failing"]);
