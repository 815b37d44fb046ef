import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "./accounts";
import { createdAt } from "./columns";

/**
 * An organisation's link to the payment provider (Stripe). One row per organisation that
 * signed up through /trial with billing on; the plan and its state live on `organizations`.
 */
export const billingAccounts = sqliteTable(
  "billing_accounts",
  {
    orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
    stripeCustomerId: text("stripe_customer_id").notNull(),
    stripeSubscriptionId: text("stripe_subscription_id"),
    setupIntentId: text("setup_intent_id"),
    /** `created` of the newest provider event applied to the plan state: older events arriving late are ignored */
    stateEventAt: integer("state_event_at", { mode: "timestamp" }),
    createdAt: createdAt(),
  },
  (t) => [index("billing_accounts_customer_idx").on(t.stripeCustomerId)],
);

/** Provider webhook events already handled, by event id: a replayed event is applied once. */
export const stripeEvents = sqliteTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  processedAt: integer("processed_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date()),
});
