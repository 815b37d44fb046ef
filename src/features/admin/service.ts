import { and, eq, gt, lte } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";
import { UnauthorizedError } from "../../http/errors";
import { hashToken, newToken } from "../../lib/tokens";
import { verifyPassword } from "../auth/password-hash";

/** An admin session ends after 12 hours without use. */
export const ADMIN_IDLE_HOURS = 12;
const IDLE_MS = ADMIN_IDLE_HOURS * 3600_000;

type AdminStoreContext = Pick<ServiceContext, "store" | "now">;

/** Checks the credentials; on success opens an admin session and returns its id (only its hash is stored). */
export async function adminLogin(ctx: AdminStoreContext, input: { username: string; password: string }): Promise<string | null> {
  const { adminSessions, adminUsers } = ctx.store.t;
  const [admin] = await ctx.store.db.select().from(adminUsers).where(eq(adminUsers.username, input.username));
  const ok = await verifyPassword(input.password, admin?.passwordHash);
  if (!admin || !ok) return null;
  const sessionId = newToken();
  const now = ctx.now();
  await ctx.store.write(async (tx) => {
    await tx.insert(adminSessions).values({ tokenHash: hashToken(sessionId), adminId: admin.id, createdAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + IDLE_MS) });
    // a good moment to forget sessions that ended long ago
    await tx.delete(adminSessions).where(lte(adminSessions.expiresAt, now));
  });
  return sessionId;
}

/** The admin behind an X-Admin-Session value, sliding its idle expiry; 401 when missing, unknown or expired. */
export async function requireAdmin(ctx: AdminStoreContext, sessionId: string | null | undefined): Promise<{ adminId: string }> {
  if (!sessionId || sessionId.length > 200) throw new UnauthorizedError("Admin login required.");
  const { adminSessions } = ctx.store.t;
  const now = ctx.now();
  const [row] = await ctx.store.db
    .select({ id: adminSessions.id, adminId: adminSessions.adminId })
    .from(adminSessions)
    .where(and(eq(adminSessions.tokenHash, hashToken(sessionId)), gt(adminSessions.expiresAt, now)));
  if (!row) throw new UnauthorizedError("Admin login required.");
  await ctx.store.write((tx) => tx.update(adminSessions).set({ lastSeenAt: now, expiresAt: new Date(now.getTime() + IDLE_MS) }).where(eq(adminSessions.id, row.id)));
  return { adminId: row.adminId };
}

export async function adminLogout(ctx: Pick<ServiceContext, "store">, sessionId: string): Promise<void> {
  const { adminSessions } = ctx.store.t;
  await ctx.store.write((tx) => tx.delete(adminSessions).where(eq(adminSessions.tokenHash, hashToken(sessionId))));
}
