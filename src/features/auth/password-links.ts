/**
 * Set-password links: "Forgot password?" on /login, and the first password of an account
 * made by /trial. A link is a random token stored only as its SHA-256; it works once and for
 * PASSWORD_LINK_HOURS. Using it sets the password, ends every other session of the user and
 * signs them in with a new one (after their second-factor code, when two-factor sign-in is on).
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import type { PublicContext, ServiceContext } from "../../http/access";
import { NotFoundError, ServiceError, ValidationError } from "../../http/errors";
import { hashToken, newToken } from "../../lib/tokens";
import { sendInBackground } from "../mail/mailer";
import { passwordLinkMail } from "../mail/templates";
import { userMailBase } from "../branding/service";
import { markEmailVerified } from "./email-verification";
import { signInByLink, userByEmail, userById, type LinkSignIn } from "./service";
import { deleteSessionsOf, type WithStore } from "./sessions";
import { hashPassword } from "./password-hash";

export const PASSWORD_LINK_HOURS = 24;
export const LINK_INVALID = "This link is not valid any more: it was used already or has expired. Ask for a new one from the sign-in page.";

export class MailNotConfiguredError extends ServiceError {
  constructor() {
    super(503, "mail_not_configured", "This server cannot send mail, so it cannot send password links. Ask the person who runs this dmarcwarden server to configure outgoing mail.");
  }
}

/** Stores a new link for the user and returns its token (to put in mail, never in a response). */
export async function issuePasswordToken({ store }: WithStore, userId: string, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_HOURS * 3600_000);
  await store.write((tx) => tx.insert(store.t.passwordTokens).values({ userId, tokenHash: hashToken(token), expiresAt, createdAt: now }));
  return { token, expiresAt };
}

/** `base`: the person's mail base (branding's userMailBase: an MSP's own hostname for someone who belongs only to it and its clients, else --public-url) */
export const setPasswordUrl = (base: string, token: string) => `${base}/set-password?token=${encodeURIComponent(token)}`;

/**
 * Mails a set-password link to the user (in the background: a mail failure is logged, not
 * thrown). Called after the caller's transaction: the mail goes out only for a committed account.
 */
export async function mailPasswordLink(ctx: Pick<ServiceContext, "store" | "log" | "mailer" | "stripe" | "config">, userId: string, reason: "reset" | "trial", now: Date): Promise<boolean> {
  const mailer = ctx.mailer;
  if (!mailer) return false;
  const user = await userById(ctx, userId);
  if (!user) return false;
  const { token, expiresAt } = await issuePasswordToken(ctx, userId, now);
  sendInBackground(mailer, ctx.log, reason === "trial" ? "trial_password_link" : "password_link", passwordLinkMail({ to: user.email, name: user.name, link: setPasswordUrl(await userMailBase(ctx, userId), token), expiresAt, reason }));
  return true;
}

/**
 * "Forgot password?": sends a link when the address has an account. The caller answers the
 * same either way, and the mail goes out in the background, so neither the answer nor its
 * timing tells whether an account exists.
 */
export async function requestPasswordLink(ctx: PublicContext, email: string): Promise<void> {
  if (!ctx.mailer) throw new MailNotConfiguredError();
  const user = await userByEmail(ctx, email);
  if (user) await mailPasswordLink(ctx, user.id, "reset", ctx.now());
}

async function liveToken({ store }: WithStore, token: string, now: Date) {
  const { passwordTokens, users } = store.t;
  const [row] = await store.db
    .select({ tokenId: passwordTokens.id, userId: users.id, email: users.email })
    .from(passwordTokens)
    .innerJoin(users, eq(users.id, passwordTokens.userId))
    .where(and(eq(passwordTokens.tokenHash, hashToken(token)), isNull(passwordTokens.usedAt), gt(passwordTokens.expiresAt, now)));
  if (!row) throw new NotFoundError(LINK_INVALID);
  return row;
}

/** Which account a live link is for (shown on /set-password before the form). */
export async function describePasswordLink(ctx: PublicContext, token: string): Promise<{ email: string }> {
  return { email: (await liveToken(ctx, token, ctx.now())).email };
}

/**
 * Uses a link once: sets the password, uses up every link of the user, ends all their sessions
 * and opens a new one, or a pending login when a second-factor code must follow (returned), in
 * one transaction.
 */
export async function resetPassword(ctx: PublicContext, input: { token: string; password: string }): Promise<LinkSignIn> {
  const now = ctx.now();
  const link = await liveToken(ctx, input.token, now);
  if (input.password.toLowerCase() === link.email) throw new ValidationError("Password must not be your email address", { password: "Password must not be your email address" });
  const passwordHash = await hashPassword(input.password);
  const { passwordTokens, users } = ctx.store.t;
  return ctx.store.write(async (tx) => {
    // re-checked inside the transaction: two requests racing with one link, only one wins
    const used = await tx
      .update(passwordTokens)
      .set({ usedAt: now })
      .where(and(eq(passwordTokens.id, link.tokenId), isNull(passwordTokens.usedAt), gt(passwordTokens.expiresAt, now)))
      .returning({ id: passwordTokens.id });
    if (!used.length) throw new NotFoundError(LINK_INVALID);
    await tx.update(passwordTokens).set({ usedAt: now }).where(and(eq(passwordTokens.userId, link.userId), isNull(passwordTokens.usedAt)));
    await tx.update(users).set({ passwordHash }).where(eq(users.id, link.userId));
    // the link came by mail: the address is proven
    await markEmailVerified(ctx, link.userId, now);
    await deleteSessionsOf(ctx, link.userId);
    return signInByLink(ctx, link.userId, now);
  });
}
