/** The owner's "require two-factor sign-in for every member" setting (a column of organization_settings). */
import { eq } from "drizzle-orm";
import type { WithStore } from "../auth/sessions";

export async function twoFactorRequiredIn(ctx: WithStore, orgId: string): Promise<boolean> {
  const { organizationSettings: s } = ctx.store.t;
  const [row] = await ctx.store.db.select({ required: s.requireTwoFactor }).from(s).where(eq(s.orgId, orgId)).limit(1);
  return row?.required === true;
}

export async function setTwoFactorRequired(ctx: WithStore, orgId: string, required: boolean, at: Date): Promise<void> {
  const { organizationSettings: s } = ctx.store.t;
  await ctx.store.write((tx) =>
    tx
      .insert(s)
      .values({ orgId, requireTwoFactor: required, updatedAt: at })
      .onConflictDoUpdate({ target: s.orgId, set: { requireTwoFactor: required, updatedAt: at } }),
  );
}
