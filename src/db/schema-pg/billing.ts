import { index, pgTable, text } from "drizzle-orm/pg-core";
import { organizations } from "./accounts";
import { createdAt, epoch } from "./columns";

export const billingAccounts = pgTable(
  "billing_accounts",
  {
    orgId: text("org_id").primaryKey().references(() => organizations.id, { onDelete: "cascade" }),
    stripeCustomerId: text("stripe_customer_id").notNull(),
    stripeSubscriptionId: text("stripe_subscription_id"),
    setupIntentId: text("setup_intent_id"),
    stateEventAt: epoch("state_event_at"),
    createdAt: createdAt(),
  },
  (t) => [index("billing_accounts_customer_idx").on(t.stripeCustomerId)],
);

export const stripeEvents = pgTable("stripe_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  processedAt: epoch("processed_at").notNull().$defaultFn(() => new Date()),
});
