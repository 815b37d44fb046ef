/**
 * Whether the organization has put away its getting-started checklist (dashboard), stored on
 * its settings row so every member and every node sees the same.
 */
import { eq } from "drizzle-orm";
import type { OrgContext } from "../../http/access";

export async function onboardingDismissedAt(ctx: OrgContext): Promise<Date | null> {
  const { organizationSettings: s } = ctx.store.t;
  const [row] = await ctx.store.db.select({ at: s.onboardingDismissedAt }).from(s).where(eq(s.orgId, ctx.actor.orgId)).limit(1);
  return row?.at ?? null;
}

export async function dismissOnboarding(ctx: OrgContext): Promise<void> {
  const { organizationSettings: s } = ctx.store.t;
  const at = ctx.now();
  await ctx.store.write((tx) => tx.insert(s).values({ orgId: ctx.actor.orgId, onboardingDismissedAt: at }).onConflictDoUpdate({ target: s.orgId, set: { onboardingDismissedAt: at } }));
}
