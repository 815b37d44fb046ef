/**
 * Who an organisation is and who reads its mail: what scheduled mail (the weekly digest,
 * account notices) needs of the organisations feature. Product mail goes only to addresses
 * whose owner proved they read them (users.email_verified_at, see auth/email-verification).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Role } from "../../db/schema";
import { byCodeUnit } from "../../lib/order";
import { usersByIds } from "../auth/service";
import type { WithStore } from "../auth/sessions";

type Ctx = WithStore;

export interface OrganizationInfo {
  id: string;
  name: string;
  slug: string;
  parentId: string | null;
  plan: string;
  planStatus: string;
  trialEndsAt: Date | null;
}

const columns = (o: Ctx["store"]["t"]["organizations"]) => ({ id: o.id, name: o.name, slug: o.slug, parentId: o.parentId, plan: o.plan, planStatus: o.planStatus, trialEndsAt: o.trialEndsAt });

export async function organizationInfo(ctx: Ctx, orgId: string): Promise<OrganizationInfo | null> {
  const o = ctx.store.t.organizations;
  const [row] = await ctx.store.db.select(columns(o)).from(o).where(eq(o.id, orgId)).limit(1);
  return row ?? null;
}

/** Every organisation (the scheduler walks them), oldest first. */
export async function allOrganizations(ctx: Ctx): Promise<OrganizationInfo[]> {
  const o = ctx.store.t.organizations;
  return ctx.store.db.select(columns(o)).from(o).orderBy(asc(o.createdAt), asc(o.id));
}

/** An MSP organisation's client organisations, by name. */
export async function clientsOf(ctx: Ctx, parentId: string): Promise<OrganizationInfo[]> {
  const o = ctx.store.t.organizations;
  return ctx.store.db.select(columns(o)).from(o).where(eq(o.parentId, parentId)).orderBy(asc(o.name), asc(o.id));
}

/** The verified email addresses of the organisation's members in `roles` (default: owners and admins). */
export async function verifiedEmailsOf(ctx: Ctx, orgId: string, roles: Role[] = ["owner", "admin"]): Promise<{ name: string; email: string }[]> {
  const { memberships } = ctx.store.t;
  const members = await ctx.store.db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), inArray(memberships.role, roles)));
  const users = await usersByIds(ctx, members.map((m) => m.userId));
  return [...users.values()]
    .filter((user) => user.emailVerifiedAt !== null)
    .map((user) => ({ name: user.name, email: user.email }))
    .sort((a, b) => byCodeUnit(a.email, b.email));
}
