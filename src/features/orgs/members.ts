import { and, asc, count, countDistinct, eq, gt, inArray, isNotNull, isNull } from "drizzle-orm";
import type { Role } from "../../db/schema";
import type { OrgContext, ServiceContext, UserContext } from "../../http/access";
import { ConflictError, ForbiddenError, NotFoundError } from "../../http/errors";
import { roleAllows, roleAtLeast } from "../../lib/permissions";
import { hashToken, newToken } from "../../lib/tokens";
import { memberJoinedEvent } from "../../lib/alerts/account-events";
import { recordEvents } from "../alerts/events";
import { markEmailVerified, requireProvedEmail } from "../auth/email-verification";
import { userByEmail, userById, usersByIds } from "../auth/service";
import { setSessionOrganization } from "../auth/sessions";
import { assertCanAddMember } from "../billing/limits";
import type { InvitationView, MemberView, MembersResponse } from "./contract";

export const INVITATION_DAYS = 7;
const LAST_OWNER = "An organization needs at least one owner. Make another member owner first.";
const OWNER_ONLY = "Only an owner can give or take away the owner role.";
const LINK_USED = "This invitation link is not valid any more: it was used already or has expired. Ask for a new one.";

type InvitationRow = ServiceContext["store"]["t"]["invitations"]["$inferSelect"];
const invitationView = (i: InvitationRow): InvitationView => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expiresAt.toISOString(), createdAt: i.createdAt.toISOString() });

/** Members in the order they joined (owners first among those who joined in the same second). */
function byJoining(a: { joinedAt: Date; role: Role; email: string }, b: { joinedAt: Date; role: Role; email: string }): number {
  return a.joinedAt.getTime() - b.joinedAt.getTime() || Number(roleAtLeast(b.role, a.role)) - Number(roleAtLeast(a.role, b.role)) || a.email.localeCompare(b.email);
}

/** Memberships with their user's name and email (from the auth feature); a membership without its user is left out. */
async function withUsers<T extends { userId: string }>(ctx: Pick<ServiceContext, "store">, rows: T[]): Promise<(T & { name: string; email: string })[]> {
  const users = await usersByIds(ctx, rows.map((r) => r.userId));
  return rows.flatMap((row) => {
    const user = users.get(row.userId);
    return user ? [{ ...row, name: user.name, email: user.email }] : [];
  });
}

export async function listMembers(ctx: OrgContext): Promise<MembersResponse> {
  const { memberships, invitations } = ctx.store.t;
  const { orgId, role } = ctx.actor;
  const rows = await withUsers(
    ctx,
    await ctx.store.db.select({ id: memberships.id, userId: memberships.userId, role: memberships.role, joinedAt: memberships.createdAt }).from(memberships).where(eq(memberships.orgId, orgId)),
  );
  const members: MemberView[] = rows.sort(byJoining).map((m) => ({ ...m, joinedAt: m.joinedAt.toISOString() }));
  const pending = roleAllows(role, "members:manage")
    ? await ctx.store.db
        .select()
        .from(invitations)
        .where(and(eq(invitations.orgId, orgId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, ctx.now())))
        .orderBy(asc(invitations.createdAt), asc(invitations.email))
    : [];
  return { members, invitations: pending.map(invitationView) };
}

/**
 * Creates a single-use invitation link (only its hash is stored) and returns the token to show
 * or mail. The plan's member limit is checked in the same transaction as the insert.
 */
export async function invite(ctx: OrgContext, email: string, role: Role): Promise<{ invitation: InvitationView; token: string }> {
  const { memberships, invitations } = ctx.store.t;
  const { actor } = ctx;
  if (role === "owner" && actor.role !== "owner") throw new ForbiddenError(OWNER_ONLY);
  await requireProvedEmail(ctx, actor.user.userId);
  const now = ctx.now();
  const token = newToken();
  const row = await ctx.store.write(async (tx) => {
    const invited = await userByEmail(ctx, email);
    const [already] = invited
      ? await tx
          .select({ id: memberships.id })
          .from(memberships)
          .where(and(eq(memberships.orgId, actor.orgId), eq(memberships.userId, invited.id)))
          .limit(1)
      : [];
    if (already) throw new ConflictError(`${email} is already a member of this organization.`, { email: "Already a member" });
    await assertCanAddMember(ctx, actor.orgId);
    const [created] = await tx
      .insert(invitations)
      .values({ orgId: actor.orgId, email, role, tokenHash: hashToken(token), invitedBy: actor.user.userId, createdAt: now, expiresAt: new Date(now.getTime() + INVITATION_DAYS * 86400_000) })
      .returning();
    return created!;
  });
  return { token, invitation: invitationView(row) };
}

export async function revokeInvitation(ctx: OrgContext, id: string): Promise<void> {
  const { invitations } = ctx.store.t;
  const removed = await ctx.store.write((tx) =>
    tx
      .delete(invitations)
      .where(and(eq(invitations.id, id), eq(invitations.orgId, ctx.actor.orgId), isNull(invitations.acceptedAt)))
      .returning({ id: invitations.id }),
  );
  if (!removed.length) throw new NotFoundError("No such invitation in this organization.");
}

async function liveInvitation(ctx: ServiceContext, token: string) {
  const { invitations, organizations } = ctx.store.t;
  const [row] = await ctx.store.db
    .select({ invitation: invitations, orgName: organizations.name })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.orgId))
    .where(eq(invitations.tokenHash, hashToken(token)))
    .limit(1);
  if (!row || row.invitation.acceptedAt || row.invitation.expiresAt <= ctx.now()) throw new NotFoundError(LINK_USED);
  return row;
}

/** What an invitation link is for (shown before accepting). */
export async function describeInvitation(ctx: ServiceContext, token: string) {
  const { invitation, orgName } = await liveInvitation(ctx, token);
  return { organization: orgName, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt.toISOString() };
}

/**
 * Accepts an invitation for the signed-in user (whose email must be the invited one), once:
 * the membership is added, the link used up and the session switched to the organisation.
 * The link reached the user by mail at that address, so the address counts as verified.
 */
export async function acceptInvitation(ctx: UserContext, token: string): Promise<string> {
  const { invitations, memberships } = ctx.store.t;
  const { user } = ctx;
  const now = ctx.now();
  const { invitation } = await liveInvitation(ctx, token);
  if (invitation.email !== user.email.toLowerCase()) {
    throw new ForbiddenError(`This invitation was sent to ${invitation.email}. Sign in with that address to accept it.`);
  }
  return ctx.store.write(async (tx) => {
    const used = await tx
      .update(invitations)
      .set({ acceptedAt: now })
      .where(and(eq(invitations.id, invitation.id), isNull(invitations.acceptedAt)))
      .returning({ id: invitations.id });
    if (!used.length) throw new NotFoundError(LINK_USED);
    const [existing] = await tx
      .select({ id: memberships.id })
      .from(memberships)
      .where(and(eq(memberships.orgId, invitation.orgId), eq(memberships.userId, user.userId)))
      .limit(1);
    if (!existing) {
      // the invitation is used up above, so it no longer counts as pending: the member does
      await assertCanAddMember(ctx, invitation.orgId);
      const [joined] = await tx.insert(memberships).values({ orgId: invitation.orgId, userId: user.userId, role: invitation.role }).returning({ id: memberships.id });
      // an account event for the organisation's channels and bell, in the same transaction
      await recordEvents(ctx, invitation.orgId, [memberJoinedEvent({ membershipId: joined!.id, name: user.name, email: user.email, role: invitation.role })]);
    }
    await markEmailVerified(ctx, user.userId, now, user.sessionId);
    await setSessionOrganization(ctx, user.sessionId, invitation.orgId);
    return invitation.orgId;
  });
}

async function membershipIn(ctx: OrgContext, id: string) {
  const { memberships } = ctx.store.t;
  const [row] = await ctx.store.db
    .select()
    .from(memberships)
    .where(and(eq(memberships.id, id), eq(memberships.orgId, ctx.actor.orgId)))
    .limit(1);
  if (!row) throw new NotFoundError("No such member in this organization.");
  return row;
}

async function ownerCount(ctx: OrgContext): Promise<number> {
  const { memberships } = ctx.store.t;
  const [row] = await ctx.store.db
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.orgId, ctx.actor.orgId), eq(memberships.role, "owner")));
  return Number(row?.n ?? 0);
}

export async function changeRole(ctx: OrgContext, membershipId: string, role: Role): Promise<MemberView> {
  const { memberships } = ctx.store.t;
  const { actor } = ctx;
  return ctx.store.write(async (tx) => {
    const target = await membershipIn(ctx, membershipId);
    if ((target.role === "owner" || role === "owner") && actor.role !== "owner") throw new ForbiddenError(OWNER_ONLY);
    if (target.role === "owner" && role !== "owner" && (await ownerCount(ctx)) <= 1) throw new ConflictError(LAST_OWNER);
    await tx.update(memberships).set({ role }).where(eq(memberships.id, target.id));
    const user = await userById(ctx, target.userId);
    return { id: target.id, userId: user!.id, name: user!.name, email: user!.email, role, joinedAt: target.createdAt.toISOString() };
  });
}

/** Removes a member (admins and owners; anyone may remove themselves). The last owner stays. */
export async function removeMember(ctx: OrgContext, membershipId: string): Promise<void> {
  const { memberships } = ctx.store.t;
  const { actor } = ctx;
  await ctx.store.write(async (tx) => {
    const target = await membershipIn(ctx, membershipId);
    const self = target.userId === actor.user.userId;
    if (!self && !roleAllows(actor.role, "members:manage")) throw new ForbiddenError();
    if (!self && target.role === "owner" && actor.role !== "owner") throw new ForbiddenError(OWNER_ONLY);
    if (target.role === "owner" && (await ownerCount(ctx)) <= 1) throw new ConflictError(LAST_OWNER);
    await tx.delete(memberships).where(eq(memberships.id, target.id));
  });
}

/** Distinct members of the organisations plus their pending invitations (plan limits count both). */
export async function countMembersAndInvitations(ctx: Pick<ServiceContext, "store" | "now">, orgIds: string[]): Promise<number> {
  const { memberships, invitations } = ctx.store.t;
  const [members] = await ctx.store.db.select({ n: countDistinct(memberships.userId) }).from(memberships).where(inArray(memberships.orgId, orgIds));
  const [pending] = await ctx.store.db
    .select({ n: count() })
    .from(invitations)
    .where(and(inArray(invitations.orgId, orgIds), isNull(invitations.acceptedAt), gt(invitations.expiresAt, ctx.now())));
  return Number(members?.n ?? 0) + Number(pending?.n ?? 0);
}

/** The email of the organisation's longest-standing owner, or null (the settings' default contact). */
export async function firstOwnerEmail(ctx: Pick<ServiceContext, "store">, orgId: string): Promise<string | null> {
  const { memberships } = ctx.store.t;
  const owners = await withUsers(
    ctx,
    await ctx.store.db
      .select({ userId: memberships.userId, joinedAt: memberships.createdAt })
      .from(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner"))),
  );
  owners.sort((a, b) => a.joinedAt.getTime() - b.joinedAt.getTime() || a.email.localeCompare(b.email));
  return owners[0]?.email ?? null;
}

/**
 * Makes the user a member with `role` unless they are one already (a first sign-in through the
 * organisation's single sign-on): the plan's member limit holds, and the organisation's channels
 * hear of the new member. Joins the caller's transaction; answers whether the user joined.
 */
export async function joinOrganization(ctx: ServiceContext, orgId: string, user: { id: string; name: string; email: string }, role: Role): Promise<boolean> {
  const { memberships } = ctx.store.t;
  return ctx.store.write(async (tx) => {
    const [existing] = await tx
      .select({ id: memberships.id })
      .from(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, user.id)))
      .limit(1);
    if (existing) return false;
    await assertCanAddMember(ctx, orgId);
    const [joined] = await tx.insert(memberships).values({ orgId, userId: user.id, role }).returning({ id: memberships.id });
    await recordEvents(ctx, orgId, [memberJoinedEvent({ membershipId: joined!.id, name: user.name, email: user.email, role })]);
    return true;
  });
}

/**
 * Undoes what this user's invitations did: deletes the ones not yet accepted, and removes the
 * members who joined through the accepted ones (never the user themself, never an
 * organisation's last owner). Answers what was removed.
 */
export async function dropWhatWasInvitedBy(
  ctx: Pick<ServiceContext, "store">,
  userId: string,
): Promise<{ invitations: { orgId: string; email: string; role: Role }[]; members: { orgId: string; email: string; role: Role }[] }> {
  const { invitations, memberships } = ctx.store.t;
  return ctx.store.write(async (tx) => {
    const pending = await tx
      .delete(invitations)
      .where(and(eq(invitations.invitedBy, userId), isNull(invitations.acceptedAt)))
      .returning({ orgId: invitations.orgId, email: invitations.email, role: invitations.role });
    const accepted = await tx.select({ orgId: invitations.orgId, email: invitations.email }).from(invitations).where(and(eq(invitations.invitedBy, userId), isNotNull(invitations.acceptedAt)));
    const members: { orgId: string; email: string; role: Role }[] = [];
    for (const { orgId, email } of accepted) {
      const joined = await userByEmail(ctx, email);
      if (!joined || joined.id === userId) continue;
      const [membership] = await tx
        .select({ id: memberships.id, role: memberships.role })
        .from(memberships)
        .where(and(eq(memberships.orgId, orgId), eq(memberships.userId, joined.id)))
        .limit(1);
      if (!membership) continue;
      if (membership.role === "owner") {
        const [owners] = await tx
          .select({ n: count() })
          .from(memberships)
          .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner")));
        if (Number(owners?.n ?? 0) <= 1) continue;
      }
      await tx.delete(memberships).where(eq(memberships.id, membership.id));
      members.push({ orgId, email: joined.email, role: membership.role });
    }
    return { invitations: pending, members };
  });
}
