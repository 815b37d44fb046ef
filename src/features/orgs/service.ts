import { eq } from "drizzle-orm";
import type { OrgContext, UserContext } from "../../http/access";
import { NotFoundError, ValidationError } from "../../http/errors";
import type { Role } from "../../db/schema";
import type { OrgSummary } from "../auth/contract";
import { setSessionOrganization, type WithStore } from "../auth/sessions";
import { effectiveRole, uniqueSlug } from "./directory";

/**
 * Creates a client organisation under the actor's current one (MSP). Its owners and admins
 * act in the client with their own role; nobody is a direct member yet.
 */
export async function createClient(ctx: OrgContext, name: string): Promise<OrgSummary> {
  const { organizations } = ctx.store.t;
  const { actor } = ctx;
  const org = await ctx.store.write(async (tx) => {
    const [parent] = await tx.select({ parentId: organizations.parentId }).from(organizations).where(eq(organizations.id, actor.orgId)).limit(1);
    if (parent?.parentId) throw new ValidationError("A client organization cannot have clients of its own. Switch to the managing organization first.");
    const [created] = await tx
      .insert(organizations)
      .values({ name, slug: await uniqueSlug(ctx, name), parentId: actor.orgId })
      .returning();
    return created!;
  });
  return { id: org.id, name: org.name, slug: org.slug, parentId: org.parentId, role: (await effectiveRole(ctx, actor.user.userId, org.id))! };
}

/** Makes `orgId` the session's current organisation; 404 unless the user may act in it. */
export async function switchOrganization(ctx: UserContext, orgId: string): Promise<void> {
  if (!(await effectiveRole(ctx, ctx.user.userId, orgId))) throw new NotFoundError("No such organization.");
  await setSessionOrganization(ctx, ctx.user.sessionId, orgId);
}

/**
 * Creates an organisation owned by `ownerId` (sign-up, the trial): the organisation and the
 * owner's membership, in one transaction (the caller's, when it runs inside one).
 */
export async function createOwnedOrganization(
  ctx: WithStore,
  organization: { id?: string; name: string; plan?: string; planStatus?: string; trialEndsAt?: Date | null; ownerId: string },
): Promise<string> {
  const { memberships, organizations } = ctx.store.t;
  const { ownerId, ...values } = organization;
  return ctx.store.write(async (tx) => {
    const [org] = await tx
      .insert(organizations)
      .values({ ...values, slug: await uniqueSlug(ctx, organization.name) })
      .returning({ id: organizations.id });
    await tx.insert(memberships).values({ orgId: org!.id, userId: ownerId, role: "owner" });
    return org!.id;
  });
}

/** The organisation with this slug (the CLI names organisations by slug), or null. */
export async function organizationBySlug(ctx: WithStore, slug: string): Promise<{ id: string; name: string } | null> {
  const { organizations } = ctx.store.t;
  const [org] = await ctx.store.db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.slug, slug));
  return org ?? null;
}

/** An organisation's name, or null when it does not exist. */
export async function organizationName(ctx: WithStore, orgId: string): Promise<string | null> {
  const { organizations } = ctx.store.t;
  const [org] = await ctx.store.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)).limit(1);
  return org?.name ?? null;
}

/** The organisation whose report address uses this token (report mail names it), or null. */
export async function organizationByReportToken(ctx: WithStore, token: string): Promise<{ id: string } | null> {
  const { organizations } = ctx.store.t;
  const [org] = await ctx.store.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.reportToken, token));
  return org ?? null;
}

/** The token of the organisation's report address, or null when it no longer exists. */
export async function reportTokenOf(ctx: WithStore, orgId: string): Promise<string | null> {
  const { organizations } = ctx.store.t;
  const [org] = await ctx.store.db.select({ token: organizations.reportToken }).from(organizations).where(eq(organizations.id, orgId));
  return org?.token ?? null;
}

/** An organisation's billing plan and its state, as the billing feature decides them (joins the caller's transaction). */
export async function setBillingState(ctx: WithStore, orgId: string, state: { plan?: string; planStatus?: string; trialEndsAt?: Date | null }): Promise<void> {
  const { organizations } = ctx.store.t;
  if (!Object.keys(state).length) return;
  await ctx.store.write((tx) => tx.update(organizations).set(state).where(eq(organizations.id, orgId)));
}

/** Renames an organisation (the trial form sent again with another company name). */
export async function renameOrganization(ctx: WithStore, orgId: string, name: string): Promise<void> {
  const { organizations } = ctx.store.t;
  await ctx.store.write((tx) => tx.update(organizations).set({ name }).where(eq(organizations.id, orgId)));
}

/** The organisation with this slug, made with `name` when there is none (the demo seed); returns its id. */
export async function ensureOrganization(ctx: WithStore, slug: string, name: string): Promise<string> {
  const { organizations } = ctx.store.t;
  return ctx.store.write(async (tx) => {
    const [org] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug));
    if (org) return org.id;
    const [created] = await tx.insert(organizations).values({ name, slug }).returning({ id: organizations.id });
    return created!.id;
  });
}

/** Makes the user a member with `role` unless they are one already (the demo seed). */
export async function ensureMembership(ctx: WithStore, orgId: string, userId: string, role: Role): Promise<void> {
  const { memberships } = ctx.store.t;
  await ctx.store.write((tx) => tx.insert(memberships).values({ orgId, userId, role }).onConflictDoNothing());
}
