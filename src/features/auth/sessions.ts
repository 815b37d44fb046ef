import { and, eq, gt } from "drizzle-orm";
import type { DB } from "../../db";
import type { StoreCore } from "../../db/store";
import { memberships, organizations, sessions, users, type Role } from "../../db/schema";
import { hashToken, newToken } from "../../lib/tokens";

/** Sliding expiry: a session lives 30 days past its last use. */
export const SESSION_DAYS = 30;
export const SESSION_COOKIE = "dw_session";

export interface SessionUser {
  sessionId: string;
  userId: string;
  name: string;
  email: string;
  hasPassword: boolean;
  currentOrgId: string | null;
}

export function createSession(db: DB, userId: string, currentOrgId: string | null, now = new Date()): string {
  const token = newToken();
  db.insert(sessions)
    .values({ tokenHash: hashToken(token), userId, currentOrgId, lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_DAYS * 86400_000) })
    .run();
  return token;
}

/** Looks a cookie token up; extends a live session's expiry (at most once a minute). */
export function resolveSession(db: DB, token: string | undefined | null, now = new Date()): SessionUser | null {
  if (!token || token.length > 200) return null;
  const row = db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, hashToken(token)), gt(sessions.expiresAt, now)))
    .get();
  if (!row) return null;
  if (now.getTime() - row.session.lastSeenAt.getTime() > 60_000) {
    db.update(sessions)
      .set({ lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_DAYS * 86400_000) })
      .where(eq(sessions.id, row.session.id))
      .run();
  }
  return {
    sessionId: row.session.id,
    userId: row.user.id,
    name: row.user.name,
    email: row.user.email,
    hasPassword: row.user.passwordHash !== null,
    currentOrgId: row.session.currentOrgId,
  };
}

export function deleteSession(db: DB, token: string): void {
  db.delete(sessions).where(eq(sessions.tokenHash, hashToken(token))).run();
}

/**
 * The role a user has in an organisation: their own membership, or — for an MSP's client
 * organisation — the role they hold as owner or admin of the parent organisation.
 */
export function effectiveRole(db: DB, userId: string, orgId: string): Role | null {
  const direct = db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.userId, userId), eq(memberships.orgId, orgId))).get();
  const org = db.select({ parentId: organizations.parentId }).from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) return null;
  let inherited: Role | null = null;
  if (org.parentId) {
    const parentRole = effectiveRole(db, userId, org.parentId);
    if (parentRole === "owner" || parentRole === "admin") inherited = parentRole;
  }
  const rank = { viewer: 0, member: 1, admin: 2, owner: 3 } as const;
  const roles = [direct?.role, inherited].filter(Boolean) as Role[];
  if (!roles.length) return null;
  return roles.reduce((a, b) => (rank[a] >= rank[b] ? a : b));
}

/** Makes `orgId` the session's current organisation (the caller has checked the user may act in it). */
export async function setSessionOrganization(ctx: { store: StoreCore }, sessionId: string, orgId: string): Promise<void> {
  const { sessions } = ctx.store.t;
  await ctx.store.write((tx) => tx.update(sessions).set({ currentOrgId: orgId }).where(eq(sessions.id, sessionId)));
}
