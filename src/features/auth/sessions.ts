import { and, eq, gt, ne } from "drizzle-orm";
import type { StoreCore } from "../../db/store";
import { hashToken, newToken } from "../../lib/tokens";

/** Sliding expiry: a session lives 30 days past its last use. */
export const SESSION_DAYS = 30;
export const SESSION_COOKIE = "dw_session";

/** What the session helpers need: the store (a whole service context will do). */
export type WithStore = { store: StoreCore };

export interface SessionUser {
  sessionId: string;
  userId: string;
  name: string;
  email: string;
  hasPassword: boolean;
  /** two-factor sign-in is on for this account */
  twoFactorEnabled?: boolean;
  currentOrgId: string | null;
}

/** A new session's token (for the cookie) and the row that stores it (only the token's hash). */
export function newSession(userId: string, currentOrgId: string | null, now: Date) {
  const token = newToken();
  return { token, row: { tokenHash: hashToken(token), userId, currentOrgId, lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_DAYS * 86400_000) } };
}

/** Opens a session and returns its token. Inside a `write` it joins that transaction. */
export async function createSession({ store }: WithStore, userId: string, currentOrgId: string | null, now = new Date()): Promise<string> {
  const { token, row } = newSession(userId, currentOrgId, now);
  await store.write((tx) => tx.insert(store.t.sessions).values(row));
  return token;
}

/** Looks a cookie token up; extends a live session's expiry (at most once a minute). */
export async function resolveSession({ store }: WithStore, token: string | undefined | null, now = new Date()): Promise<SessionUser | null> {
  if (!token || token.length > 200) return null;
  const { sessions, users } = store.t;
  const [row] = await store.db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, hashToken(token)), gt(sessions.expiresAt, now)));
  if (!row) return null;
  if (now.getTime() - row.session.lastSeenAt.getTime() > 60_000) {
    await store.write((tx) =>
      tx
        .update(sessions)
        .set({ lastSeenAt: now, expiresAt: new Date(now.getTime() + SESSION_DAYS * 86400_000) })
        .where(eq(sessions.id, row.session.id)),
    );
  }
  return {
    sessionId: row.session.id,
    userId: row.user.id,
    name: row.user.name,
    email: row.user.email,
    hasPassword: row.user.passwordHash !== null,
    twoFactorEnabled: row.user.totpEnabledAt !== null,
    currentOrgId: row.session.currentOrgId,
  };
}

export async function deleteSession({ store }: WithStore, token: string): Promise<void> {
  await store.write((tx) => tx.delete(store.t.sessions).where(eq(store.t.sessions.tokenHash, hashToken(token))));
}

/** Makes `orgId` the session's current organisation (the caller checked the user may act in it). */
export async function setSessionOrganization({ store }: WithStore, sessionId: string, orgId: string): Promise<void> {
  await store.write((tx) => tx.update(store.t.sessions).set({ currentOrgId: orgId }).where(eq(store.t.sessions.id, sessionId)));
}

/** Ends every session of a user (a new password was set). */
export async function deleteSessionsOf({ store }: WithStore, userId: string): Promise<void> {
  await store.write((tx) => tx.delete(store.t.sessions).where(eq(store.t.sessions.userId, userId)));
}

/** Ends every session of a user but `keepSessionId` (when given); answers how many ended. */
export async function deleteOtherSessionsOf({ store }: WithStore, userId: string, keepSessionId: string | null): Promise<number> {
  const { sessions } = store.t;
  const ended = await store.write((tx) =>
    tx
      .delete(sessions)
      .where(keepSessionId ? and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)) : eq(sessions.userId, userId))
      .returning({ id: sessions.id }),
  );
  return ended.length;
}
