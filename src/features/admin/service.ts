import { and, desc, eq, gt, lte, sql } from "drizzle-orm";
import type { DB } from "../../db";
import { adminSessions, adminUsers, contactSubmissions } from "../../db/schema";
import { NotFoundError, UnauthorizedError } from "../../http/errors";
import { hashToken, newToken } from "../../lib/tokens";
import { verifyPassword } from "../auth/throttle";
import type { ContactSubmission } from "./contract";

/** An admin session ends after 12 hours without use. */
export const ADMIN_IDLE_HOURS = 12;
const IDLE_MS = ADMIN_IDLE_HOURS * 3600_000;

/** Checks the credentials; on success opens an admin session and returns its id (only its hash is stored). */
export async function adminLogin(db: DB, username: string, password: string, now: Date): Promise<string | null> {
  const admin = db.select().from(adminUsers).where(eq(adminUsers.username, username)).get();
  const ok = await verifyPassword(password, admin?.passwordHash);
  if (!admin || !ok) return null;
  const sessionId = newToken();
  db.insert(adminSessions).values({ tokenHash: hashToken(sessionId), adminId: admin.id, createdAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + IDLE_MS) }).run();
  // a good moment to forget sessions that ended long ago
  db.delete(adminSessions).where(lte(adminSessions.expiresAt, now)).run();
  return sessionId;
}

/** The admin behind an X-Admin-Session value, sliding its idle expiry; 401 when missing, unknown or expired. */
export function requireAdmin(db: DB, sessionId: string | null | undefined, now: Date): { adminId: string } {
  if (!sessionId || sessionId.length > 200) throw new UnauthorizedError("Admin login required.");
  const row = db
    .select({ id: adminSessions.id, adminId: adminSessions.adminId })
    .from(adminSessions)
    .where(and(eq(adminSessions.tokenHash, hashToken(sessionId)), gt(adminSessions.expiresAt, now)))
    .get();
  if (!row) throw new UnauthorizedError("Admin login required.");
  db.update(adminSessions).set({ lastSeenAt: now, expiresAt: new Date(now.getTime() + IDLE_MS) }).where(eq(adminSessions.id, row.id)).run();
  return { adminId: row.adminId };
}

export function adminLogout(db: DB, sessionId: string): void {
  db.delete(adminSessions).where(eq(adminSessions.tokenHash, hashToken(sessionId))).run();
}

function toSubmission(row: typeof contactSubmissions.$inferSelect): ContactSubmission {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    company: row.company,
    domains: row.domains,
    requestType: row.requestType,
    subject: row.subject,
    message: row.message,
    isRead: row.isRead,
    submittedAt: row.submittedAt.toISOString(),
  };
}

/** Newest first (rowid breaks ties within one second). */
export function listSubmissions(db: DB): ContactSubmission[] {
  return db.select().from(contactSubmissions).orderBy(desc(contactSubmissions.submittedAt), desc(sql`rowid`)).all().map(toSubmission);
}

export function markSubmissionRead(db: DB, id: string): ContactSubmission {
  const row = db.update(contactSubmissions).set({ isRead: true }).where(eq(contactSubmissions.id, id)).returning().get();
  if (!row) throw new NotFoundError("No contact submission with this id.");
  return toSubmission(row);
}
