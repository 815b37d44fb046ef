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
import type { ServiceContext } from "../../http/access";
import { NotFoundError, ServiceError } from "../../http/errors";
import { hashToken, newToken } from "../../lib/tokens";
import { sendInBackground, type Mailer } from "../mail/mailer";
import { accountExistsMail, verifyEmailMail } from "../mail/templates";
import type { SignupInput } from "./contract";
import { createAccount, signInByLink, userByEmail, type LinkSignIn } from "./service";
import type { WithStore } from "./sessions";
import { dropUnprovedAccess } from "./first-proof";
import { hashPassword } from "./password-hash";

export const VERIFY_LINK_HOURS = 48;
export const VERIFICATION_SENT_MESSAGE = "Check your inbox: we sent a link to this address. Open it to finish creating your account (and look in the spam folder if it does not arrive).";
export const VERIFY_LINK_INVALID = "This confirmation link is not valid any more: it was used already or has expired. Sign up again with the same details to get a new one.";

type MailContext = Pick<ServiceContext, "store" | "log" | "now"> & { mailer: Mailer };

/** Whether product mail (notices, alerts, digests) may go to this user's address. */
export async function mayMail(ctx: WithStore, email: string): Promise<boolean> {
  return !!(await userByEmail(ctx, email))?.emailVerifiedAt;
}

/** 403 for an API token or an invitation from an account whose address nobody has proved yet (mail on). */
export class EmailUnverifiedError extends ServiceError {
  constructor() {
    super(
      403,
      "email_unverified",
      "Confirm your email address first: open the link we mailed to it (or use \u201cForgot password?\u201d on the sign-in page to get a new one). API tokens and invitations need a confirmed address.",
    );
  }
}

/**
 * With mail on, an account proves its address before it may hand out access (API tokens,
 * invitations): otherwise whoever typed someone else's address first could leave access behind.
 * Without a mail relay nothing can be proved, so nothing is asked.
 */
export async function requireProvedEmail(ctx: WithStore & Pick<ServiceContext, "mailer">, userId: string): Promise<void> {
  if (!ctx.mailer) return;
  const { users } = ctx.store.t;
  const [user] = await ctx.store.db.select({ at: users.emailVerifiedAt }).from(users).where(eq(users.id, userId));
  if (!user?.at) throw new EmailUnverifiedError();
}

/**
 * Marks the address proved. The first time, with mail on, what the account handed out before
 * the proof is dropped (see first-proof.ts); `keepSessionId` is the session the proof came
 * through, which stays.
 */
export async function markEmailVerified(ctx: Pick<ServiceContext, "store" | "log" | "mailer" | "now">, userId: string, now: Date, keepSessionId: string | null = null): Promise<void> {
  const { users } = ctx.store.t;
  await ctx.store.write(async (tx) => {
    const first = await tx
      .update(users)
      .set({ emailVerifiedAt: now })
      .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
      .returning({ id: users.id });
    if (first.length && ctx.mailer) await dropUnprovedAccess({ ...ctx, mailer: ctx.mailer }, userId, keepSessionId);
  });
}

export async function mailVerificationLink(ctx: MailContext, user: { id: string; name: string; email: string }): Promise<void> {
  const token = newToken();
  const now = ctx.now();
  const expiresAt = new Date(now.getTime() + VERIFY_LINK_HOURS * 3600_000);
  await ctx.store.write((tx) => tx.insert(ctx.store.t.emailVerificationTokens).values({ userId: user.id, tokenHash: hashToken(token), expiresAt, createdAt: now }));
  const link = `${ctx.mailer.publicUrl}/verify-email?token=${encodeURIComponent(token)}`;
  sendInBackground(ctx.mailer, ctx.log, "email_verification", verifyEmailMail({ to: user.email, name: user.name, link, expiresAt }));
}

/** Tells an address's owner that someone tried to make an account with it (sign-up or trial). */
export function mailAccountExists(ctx: MailContext, user: { name: string; email: string }, via: "signup" | "trial"): void {
  sendInBackground(ctx.mailer, ctx.log, "account_exists", accountExistsMail({ to: user.email, name: user.name, loginUrl: `${ctx.mailer.publicUrl}/login`, via }));
}

/** Sign-up with a mail relay: never reveals whether the email has an account. */
export async function signupWithVerification(ctx: MailContext, input: Required<SignupInput>): Promise<void> {
  const email = input.email.toLowerCase();
  // hashed on every path, so the answer takes as long for a taken email as for a new one
  const passwordHash = await hashPassword(input.password);
  const existing = await userByEmail(ctx, email);
  if (existing?.emailVerifiedAt || (existing && !existing.passwordHash)) {
    mailAccountExists(ctx, existing, "signup");
    return;
  }
  if (existing) {
    // never confirmed: whoever confirms the new link owns it, with the details sent last
    const { users } = ctx.store.t;
    await ctx.store.write((tx) => tx.update(users).set({ name: input.name, passwordHash }).where(eq(users.id, existing.id)));
    await mailVerificationLink(ctx, { id: existing.id, name: input.name, email });
    return;
  }
  const { userId } = await createAccount(ctx, { name: input.name, email, passwordHash, organization: { name: input.organization } });
  await mailVerificationLink(ctx, { id: userId, name: input.name, email });
}

/** Opens a verification link once: marks the address verified and signs in (see signInByLink). */
export async function verifyEmail(ctx: Pick<ServiceContext, "store" | "now" | "log" | "mailer">, token: string): Promise<LinkSignIn> {
  const { emailVerificationTokens } = ctx.store.t;
  const now = ctx.now();
  return ctx.store.write(async (tx) => {
    const [used] = await tx
      .update(emailVerificationTokens)
      .set({ usedAt: now })
      .where(and(eq(emailVerificationTokens.tokenHash, hashToken(token)), isNull(emailVerificationTokens.usedAt), gt(emailVerificationTokens.expiresAt, now)))
      .returning({ userId: emailVerificationTokens.userId });
    if (!used) throw new NotFoundError(VERIFY_LINK_INVALID);
    await markEmailVerified(ctx, used.userId, now);
    return signInByLink(ctx, used.userId, now);
  });
}

/** An account made by a mail-verified sign-up that was never confirmed cannot sign in yet. */
export async function awaitingVerification({ store }: WithStore, userId: string): Promise<boolean> {
  const { emailVerificationTokens, users } = store.t;
  const [user] = await store.db.select({ at: users.emailVerifiedAt }).from(users).where(eq(users.id, userId));
  if (!user || user.at) return false;
  return (await store.db.select({ id: emailVerificationTokens.id }).from(emailVerificationTokens).where(eq(emailVerificationTokens.userId, userId)).limit(1)).length > 0;
}
