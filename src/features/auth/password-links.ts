/**
 * Set-password links: "Forgot password?" on /login, and the first password of an account
 * made by /trial. A link is a random token stored only as its SHA-256; it works once and for
 * PASSWORD_LINK_HOURS. Using it sets the password, ends every other session of the user and
 * signs them in with a new one.
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import type { DB } from "../../db";
import { writeTransactionDb } from "../../db/transaction";
import { passwordTokens, sessions, users } from "../../db/schema";
import type { AppDeps } from "../../deps";
import { NotFoundError, ServiceError, ValidationError } from "../../http/errors";
import { hashToken, newToken } from "../../lib/tokens";
import { sendInBackground, type Mailer } from "../mail/mailer";
import { passwordLinkMail } from "../mail/templates";
import { organizationsOf } from "../orgs/directory";
import { markEmailVerified } from "./email-verification";
import { createSession } from "./sessions";

export const PASSWORD_LINK_HOURS = 24;
export const LINK_INVALID = "This link is not valid any more: it was used already or has expired. Ask for a new one from the sign-in page.";

export class MailNotConfiguredError extends ServiceError {
  constructor() {
    super(503, "mail_not_configured", "This server cannot send mail, so it cannot send password links. Ask the person who runs this dmarcwarden server to configure outgoing mail.");
  }
}

/** Stores a new link for the user and returns its token (to put in mail, never in a response). */
export function issuePasswordToken(db: DB, userId: string, now: Date): { token: string; expiresAt: Date } {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_HOURS * 3600_000);
  db.insert(passwordTokens).values({ userId, tokenHash: hashToken(token), expiresAt, createdAt: now }).run();
  return { token, expiresAt };
}

export const setPasswordUrl = (mailer: Mailer, token: string) => `${mailer.publicUrl}/set-password?token=${encodeURIComponent(token)}`;

/** Mails a set-password link to the user (in the background: a mail failure is logged, not thrown). */
export function mailPasswordLink(deps: Pick<AppDeps, "store" | "log" | "mailer">, userId: string, reason: "reset" | "trial", now: Date): boolean {
  const mailer = deps.mailer;
  if (!mailer) return false;
  const user = deps.store.db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, userId)).get();
  if (!user) return false;
  const { token, expiresAt } = issuePasswordToken(deps.store.db, userId, now);
  sendInBackground(mailer, deps.log, reason === "trial" ? "trial_password_link" : "password_link", passwordLinkMail({ to: user.email, name: user.name, link: setPasswordUrl(mailer, token), expiresAt, reason }));
  return true;
}

/**
 * "Forgot password?": sends a link when the address has an account. The caller answers the
 * same either way, and the mail goes out in the background, so neither the answer nor its
 * timing tells whether an account exists.
 */
export function requestPasswordLink(deps: Pick<AppDeps, "store" | "log" | "mailer">, email: string, now: Date): void {
  if (!deps.mailer) throw new MailNotConfiguredError();
  const user = deps.store.db.select({ id: users.id }).from(users).where(eq(users.email, email.toLowerCase())).get();
  if (user) mailPasswordLink(deps, user.id, "reset", now);
}

function liveToken(db: DB, token: string, now: Date) {
  const row = db
    .select({ tokenId: passwordTokens.id, userId: users.id, email: users.email })
    .from(passwordTokens)
    .innerJoin(users, eq(users.id, passwordTokens.userId))
    .where(and(eq(passwordTokens.tokenHash, hashToken(token)), isNull(passwordTokens.usedAt), gt(passwordTokens.expiresAt, now)))
    .get();
  if (!row) throw new NotFoundError(LINK_INVALID);
  return row;
}

/** Which account a live link is for (shown on /set-password before the form). */
export function describePasswordLink(db: DB, token: string, now: Date): { email: string } {
  return { email: liveToken(db, token, now).email };
}

/**
 * Uses a link once: sets the password, uses up every link of the user, ends all their sessions
 * and opens a new one (returned), in one transaction.
 */
export async function resetPassword(db: DB, token: string, password: string, now: Date): Promise<{ token: string; userId: string; orgId: string | null }> {
  const link = liveToken(db, token, now);
  if (password.toLowerCase() === link.email) throw new ValidationError("Password must not be your email address", { password: "Password must not be your email address" });
  const passwordHash = await Bun.password.hash(password, { algorithm: "argon2id" });
  return writeTransactionDb(db, (tx) => {
    const t = tx as unknown as DB;
    // re-checked inside the transaction: two requests racing with one link, only one wins
    const used = tx
      .update(passwordTokens)
      .set({ usedAt: now })
      .where(and(eq(passwordTokens.id, link.tokenId), isNull(passwordTokens.usedAt), gt(passwordTokens.expiresAt, now)))
      .returning({ id: passwordTokens.id })
      .get();
    if (!used) throw new NotFoundError(LINK_INVALID);
    tx.update(passwordTokens).set({ usedAt: now }).where(and(eq(passwordTokens.userId, link.userId), isNull(passwordTokens.usedAt))).run();
    // the link came by mail: the address is proven
    tx.update(users).set({ passwordHash }).where(eq(users.id, link.userId)).run();
    markEmailVerified(t, link.userId, now);
    tx.delete(sessions).where(eq(sessions.userId, link.userId)).run();
    const orgId = organizationsOf(t, link.userId)[0]?.id ?? null;
    return { userId: link.userId, orgId, token: createSession(t, link.userId, orgId, now) };
  });
}
