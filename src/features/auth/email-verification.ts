/**
 * Sign-up when mail is on: the answer is the same whether or not the email already has an
 * account ("we sent you a link"), so sign-up cannot be used to find out who has an account.
 * A new account is made without a session and its owner gets an email-verification link; an
 * existing owner gets a "you already have an account" mail instead. Opening the link marks the
 * address verified and signs in. Until then no other product mail goes to the address (see
 * mayMail); mail that itself proves the address (verification and password links,
 * invitations) is sent regardless. Without a mail relay nothing can be mailed, so sign-up
 * answers as before (409 for a taken email) and no account waits for verification.
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import type { DB } from "../../db";
import { writeTransactionDb } from "../../db/transaction";
import { emailVerificationTokens, memberships, organizations, users } from "../../db/schema";
import type { AppDeps } from "../../deps";
import { NotFoundError } from "../../http/errors";
import { hashToken, newToken } from "../../lib/tokens";
import { sendInBackground, type Mailer } from "../mail/mailer";
import { accountExistsMail, verifyEmailMail } from "../mail/templates";
import { organizationsOf, uniqueSlug } from "../orgs/directory";
import type { SignupInput } from "./contract";
import { createSession } from "./sessions";

export const VERIFY_LINK_HOURS = 48;
export const VERIFICATION_SENT_MESSAGE = "Check your inbox: we sent a link to this address. Open it to finish creating your account (and look in the spam folder if it does not arrive).";
export const VERIFY_LINK_INVALID = "This confirmation link is not valid any more: it was used already or has expired. Sign up again with the same details to get a new one.";

type MailDeps = Pick<AppDeps, "store" | "log"> & { mailer: Mailer };

/** Whether product mail (notices, alerts, digests) may go to this user's address. */
export function mayMail(db: DB, email: string): boolean {
  return !!db.select({ at: users.emailVerifiedAt }).from(users).where(eq(users.email, email.toLowerCase())).get()?.at;
}

export function markEmailVerified(db: DB, userId: string, now: Date): void {
  db.update(users).set({ emailVerifiedAt: now }).where(and(eq(users.id, userId), isNull(users.emailVerifiedAt))).run();
}

function mailVerificationLink(deps: MailDeps, user: { id: string; name: string; email: string }, now: Date): void {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + VERIFY_LINK_HOURS * 3600_000);
  deps.store.db.insert(emailVerificationTokens).values({ userId: user.id, tokenHash: hashToken(token), expiresAt, createdAt: now }).run();
  const link = `${deps.mailer.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
  sendInBackground(deps.mailer, deps.log, "email_verification", verifyEmailMail({ to: user.email, name: user.name, link, expiresAt }));
}

/** Sign-up with a mail relay: never reveals whether the email has an account. */
export async function signupWithVerification(deps: MailDeps, input: Required<SignupInput>, now: Date): Promise<void> {
  const db = deps.store.db;
  const email = input.email.toLowerCase();
  // hashed on every path, so the answer takes as long for a taken email as for a new one
  const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
  const existing = db.select().from(users).where(eq(users.email, email)).get();
  if (existing?.emailVerifiedAt || (existing && !existing.passwordHash)) {
    sendInBackground(deps.mailer, deps.log, "account_exists", accountExistsMail({ to: existing.email, name: existing.name, loginUrl: `${deps.mailer.publicUrl}/login`, via: "signup" }));
    return;
  }
  if (existing) {
    // never confirmed: whoever confirms the new link owns it, with the details sent last
    db.update(users).set({ name: input.name, passwordHash }).where(eq(users.id, existing.id)).run();
    mailVerificationLink(deps, { id: existing.id, name: input.name, email }, now);
    return;
  }
  const userId = crypto.randomUUID();
  writeTransactionDb(db, (tx) => {
    tx.insert(users).values({ id: userId, name: input.name, email, passwordHash }).run();
    const orgId = tx.insert(organizations).values({ name: input.organization, slug: uniqueSlug(tx as unknown as DB, input.organization) }).returning({ id: organizations.id }).get().id;
    tx.insert(memberships).values({ orgId, userId, role: "owner" }).run();
  });
  mailVerificationLink(deps, { id: userId, name: input.name, email }, now);
}

/** Opens a verification link once: marks the address verified and signs in. */
export function verifyEmail(db: DB, token: string, now: Date): { token: string; userId: string; orgId: string | null } {
  return writeTransactionDb(db, (tx) => {
    const t = tx as unknown as DB;
    const used = tx
      .update(emailVerificationTokens)
      .set({ usedAt: now })
      .where(and(eq(emailVerificationTokens.tokenHash, hashToken(token)), isNull(emailVerificationTokens.usedAt), gt(emailVerificationTokens.expiresAt, now)))
      .returning({ userId: emailVerificationTokens.userId })
      .get();
    if (!used) throw new NotFoundError(VERIFY_LINK_INVALID);
    markEmailVerified(t, used.userId, now);
    const orgId = organizationsOf(t, used.userId)[0]?.id ?? null;
    return { userId: used.userId, orgId, token: createSession(t, used.userId, orgId, now) };
  });
}

/** An account made by a mail-verified sign-up that was never confirmed cannot sign in yet. */
export function awaitingVerification(db: DB, userId: string): boolean {
  const user = db.select({ at: users.emailVerifiedAt }).from(users).where(eq(users.id, userId)).get();
  if (!user || user.at) return false;
  return !!db.select({ id: emailVerificationTokens.id }).from(emailVerificationTokens).where(eq(emailVerificationTokens.userId, userId)).get();
}
