import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { writeTransactionDb } from "../../db/transaction";
import type { DB } from "../../db";
import { invitations, memberships, organizations, sessions, users, type Role } from "../../db/schema";
import { ConflictError, ForbiddenError, NotFoundError } from "../../http/errors";
import type { Actor } from "../../http/tenant";
import { roleAllows } from "../../lib/permissions";
import { hashToken, newToken } from "../../lib/tokens";
import { assertCanAddMember } from "../billing/limits";
import type { InvitationView, MemberView, MembersResponse } from "./contract";

export const INVITATION_DAYS = 7;
const LAST_OWNER = "An organisation needs at least one owner. Make another member owner first.";
const OWNER_ONLY = "Only an owner can give or take away the owner role.";

export function listMembers(db: DB, actor: Actor, now: Date): MembersResponse {
  const members: MemberView[] = db
    .select({ id: memberships.id, userId: users.id, name: users.name, email: users.email, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.orgId, actor.orgId))
    .orderBy(asc(memberships.createdAt), asc(sql`"memberships"."rowid"`))
    .all()
    .map((m) => ({ ...m, joinedAt: m.joinedAt.toISOString() }));
  const pending: InvitationView[] = roleAllows(actor.role, "members:manage")
    ? db
        .select()
        .from(invitations)
        .where(and(eq(invitations.orgId, actor.orgId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now)))
        .orderBy(asc(invitations.createdAt))
        .all()
        .map((i) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expiresAt.toISOString(), createdAt: i.createdAt.toISOString() }))
    : [];
  return { members, invitations: pending };
}

/** Creates a single-use invitation link (only its hash is stored) and returns the token to show or mail. */
export function invite(db: DB, actor: Actor, email: string, role: Role, now: Date): { invitation: InvitationView; token: string } {
  if (role === "owner" && actor.role !== "owner") throw new ForbiddenError(OWNER_ONLY);
  const already = db
    .select({ id: memberships.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, actor.orgId), eq(users.email, email)))
    .get();
  if (already) throw new ConflictError(`${email} is already a member of this organisation.`, { email: "Already a member" });
  assertCanAddMember(db, actor.orgId);
  const token = newToken();
  const row = db
    .insert(invitations)
    .values({ orgId: actor.orgId, email, role, tokenHash: hashToken(token), invitedBy: actor.user.userId, createdAt: now, expiresAt: new Date(now.getTime() + INVITATION_DAYS * 86400_000) })
    .returning()
    .get();
  return { token, invitation: { id: row.id, email: row.email, role: row.role, expiresAt: row.expiresAt.toISOString(), createdAt: row.createdAt.toISOString() } };
}

export function revokeInvitation(db: DB, actor: Actor, id: string): void {
  const row = db.delete(invitations).where(and(eq(invitations.id, id), eq(invitations.orgId, actor.orgId), isNull(invitations.acceptedAt))).returning({ id: invitations.id }).get();
  if (!row) throw new NotFoundError("No such invitation in this organisation.");
}

function liveInvitation(db: DB, token: string, now: Date) {
  const row = db
    .select({ invitation: invitations, orgName: organizations.name })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.orgId))
    .where(eq(invitations.tokenHash, hashToken(token)))
    .get();
  if (!row || row.invitation.acceptedAt || row.invitation.expiresAt <= now) {
    throw new NotFoundError("This invitation link is not valid any more: it was used already or has expired. Ask for a new one.");
  }
  return row;
}

/** What an invitation link is for (shown before accepting). */
export function describeInvitation(db: DB, token: string, now: Date) {
  const { invitation, orgName } = liveInvitation(db, token, now);
  return { organization: orgName, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt.toISOString() };
}

/**
 * Accepts an invitation for the signed-in user (whose email must be the invited one), once:
 * the membership is added, the link used up and the session switched to the organisation.
 */
export function acceptInvitation(db: DB, user: { userId: string; email: string; sessionId: string }, token: string, now: Date): string {
  const { invitation } = liveInvitation(db, token, now);
  if (invitation.email !== user.email.toLowerCase()) {
    throw new ForbiddenError(`This invitation was sent to ${invitation.email}. Sign in with that address to accept it.`);
  }
  return writeTransactionDb(db, (tx) => {
    const used = tx.update(invitations).set({ acceptedAt: now }).where(and(eq(invitations.id, invitation.id), isNull(invitations.acceptedAt))).returning({ id: invitations.id }).get();
    if (!used) throw new NotFoundError("This invitation link is not valid any more: it was used already or has expired. Ask for a new one.");
    const existing = tx.select({ id: memberships.id }).from(memberships).where(and(eq(memberships.orgId, invitation.orgId), eq(memberships.userId, user.userId))).get();
    if (!existing) {
      assertCanAddMember(tx as unknown as DB, invitation.orgId);
      tx.insert(memberships).values({ orgId: invitation.orgId, userId: user.userId, role: invitation.role }).run();
    }
    tx.update(sessions).set({ currentOrgId: invitation.orgId }).where(eq(sessions.id, user.sessionId)).run();
    return invitation.orgId;
  });
}

function membershipIn(db: DB, orgId: string, id: string) {
  const row = db.select().from(memberships).where(and(eq(memberships.id, id), eq(memberships.orgId, orgId))).get();
  if (!row) throw new NotFoundError("No such member in this organisation.");
  return row;
}

function ownerCount(db: DB, orgId: string): number {
  return db.select({ id: memberships.id }).from(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner"))).all().length;
}

export function changeRole(db: DB, actor: Actor, membershipId: string, role: Role): MemberView {
  return writeTransactionDb(db, (tx) => {
    const target = membershipIn(tx as unknown as DB, actor.orgId, membershipId);
    if ((target.role === "owner" || role === "owner") && actor.role !== "owner") throw new ForbiddenError(OWNER_ONLY);
    if (target.role === "owner" && role !== "owner" && ownerCount(tx as unknown as DB, actor.orgId) <= 1) throw new ConflictError(LAST_OWNER);
    tx.update(memberships).set({ role }).where(eq(memberships.id, target.id)).run();
    const user = tx.select().from(users).where(eq(users.id, target.userId)).get()!;
    return { id: target.id, userId: user.id, name: user.name, email: user.email, role, joinedAt: target.createdAt.toISOString() };
  });
}

/** Removes a member (admins and owners; anyone may remove themselves). The last owner stays. */
export function removeMember(db: DB, actor: Actor, membershipId: string): void {
  writeTransactionDb(db, (tx) => {
    const target = membershipIn(tx as unknown as DB, actor.orgId, membershipId);
    const self = target.userId === actor.user.userId;
    if (!self && !roleAllows(actor.role, "members:manage")) throw new ForbiddenError();
    if (!self && target.role === "owner" && actor.role !== "owner") throw new ForbiddenError(OWNER_ONLY);
    if (target.role === "owner" && ownerCount(tx as unknown as DB, actor.orgId) <= 1) throw new ConflictError(LAST_OWNER);
    tx.delete(memberships).where(eq(memberships.id, target.id)).run();
  });
}
