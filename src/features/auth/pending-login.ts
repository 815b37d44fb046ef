/**
 * Between a right password and a right second-factor code: a pending login, not a session.
 * Its token lives in an httpOnly cookie scoped to /api/auth/login, for PENDING_LOGIN_MINUTES;
 * it is used once (deleted when the code is right) and dies after PENDING_LOGIN_FAILURES wrong codes.
 */
import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Config } from "../../config";
import type { ServiceContext } from "../../http/access";
import { hashToken, newToken } from "../../lib/tokens";

export const PENDING_LOGIN_COOKIE = "dw_2fa";
export const PENDING_LOGIN_MINUTES = 5;
export const PENDING_LOGIN_FAILURES = 5;

export function pendingLoginCookie(config: Pick<Config, "publicUrl">, token: string | null): string {
  const secure = config.publicUrl.startsWith("https:") ? "; Secure" : "";
  const value = token ? `${encodeURIComponent(token)}; Max-Age=${PENDING_LOGIN_MINUTES * 60}` : "; Max-Age=0";
  return `${PENDING_LOGIN_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/api/auth/login${secure}`;
}

/** Starts a pending login for the user; returns the cookie's token. Clears the user's expired ones. Inside a `write` it joins that transaction. */
export async function startPendingLogin(ctx: Pick<ServiceContext, "store" | "now">, userId: string): Promise<string> {
  const { pendingLogins } = ctx.store.t;
  const token = newToken();
  const now = ctx.now();
  await ctx.store.write(async (tx) => {
    await tx.delete(pendingLogins).where(and(eq(pendingLogins.userId, userId), lte(pendingLogins.expiresAt, now)));
    await tx.insert(pendingLogins).values({ tokenHash: hashToken(token), userId, createdAt: now, expiresAt: new Date(now.getTime() + PENDING_LOGIN_MINUTES * 60_000) });
  });
  return token;
}

/** The user a live pending login belongs to, or null (unknown, expired, used). */
export async function pendingLoginUser(ctx: ServiceContext, token: string | null): Promise<{ id: string; userId: string } | null> {
  if (!token || token.length > 200) return null;
  const { pendingLogins } = ctx.store.t;
  const [row] = await ctx.store.db
    .select({ id: pendingLogins.id, userId: pendingLogins.userId })
    .from(pendingLogins)
    .where(and(eq(pendingLogins.tokenHash, hashToken(token)), gt(pendingLogins.expiresAt, ctx.now())));
  return row ?? null;
}

/** Uses the pending login up: true for the one caller that deleted it (a second, parallel use gets false). */
export async function consumePendingLogin(ctx: ServiceContext, id: string): Promise<boolean> {
  const { pendingLogins } = ctx.store.t;
  const deleted = await ctx.store.write((tx) => tx.delete(pendingLogins).where(eq(pendingLogins.id, id)).returning({ id: pendingLogins.id }));
  return deleted.length > 0;
}

/** Counts a wrong code; the pending login ends at the limit (the user signs in with the password again). */
export async function recordPendingFailure(ctx: ServiceContext, id: string): Promise<void> {
  const { pendingLogins } = ctx.store.t;
  await ctx.store.write(async (tx) => {
    await tx.update(pendingLogins).set({ failures: sql`pending_logins.failures + 1` }).where(eq(pendingLogins.id, id));
    await tx.delete(pendingLogins).where(and(eq(pendingLogins.id, id), sql`pending_logins.failures >= ${PENDING_LOGIN_FAILURES}`));
  });
}
