/**
 * Two-factor sign-in (TOTP) for user accounts: setup → enable with a code (ten recovery codes)
 * → every sign-in asks for a code after the password → disable with a code. The secret is sealed
 * with the server key (like mailbox passwords), bound to the user's id; recovery codes are stored
 * as SHA-256 and each works once. Code attempts are counted in the database before checking.
 */
import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";
import { ConflictError, RateLimitedError, ValidationError } from "../../http/errors";
import { hashToken } from "../../lib/tokens";
import { base32Decode, newTotpSecret, otpauthUrl, verifyTotp } from "../../lib/totp";
import { decryptSecret, encryptSecret } from "../mailin/secret-box";
import { serverKey } from "../mailin/server-key";
import { clearAttempts, countAttempt } from "./attempts";
import type { SessionUser } from "./sessions";

export const RECOVERY_CODE_COUNT = 10;
/** wrong codes per account in CODE_WINDOW_SECONDS before 429 (sign-in, enable and disable alike) */
export const CODE_ATTEMPTS = 5;
export const CODE_WINDOW_SECONDS = 15 * 60;
export const ISSUER = "dmarcwarden";

export const WRONG_CODE_MESSAGE = "That code is not right. Enter the 6-digit code your authenticator app shows now (check the time on your device), or one of your recovery codes.";

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const sealContext = (userId: string) => `totp:${userId}`;

/** "abcde-fghjk": ten characters from an alphabet without look-alikes (about 49 bits). */
export function newRecoveryCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  const chars = [...bytes].map((b) => RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length]).join("");
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}
/** How a typed recovery code is compared: lower case, letters and digits only. */
export const normalizeRecoveryCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Counts a code attempt for the account; 429 past the limit. Call before checking the code. */
export async function admitCodeAttempt(ctx: ServiceContext, userId: string): Promise<void> {
  const attempts = await countAttempt(ctx.store, "2fa:user", userId, CODE_WINDOW_SECONDS, ctx.now());
  if (attempts.count > CODE_ATTEMPTS) {
    const wait = attempts.retryAfter < 60 ? `${attempts.retryAfter} seconds` : `${Math.ceil(attempts.retryAfter / 60)} minutes`;
    throw new RateLimitedError(attempts.retryAfter, `Too many codes tried. Please wait ${wait} and try again.`);
  }
}

async function userRow(ctx: Pick<ServiceContext, "store">, userId: string) {
  const { users } = ctx.store.t;
  const [row] = await ctx.store.db
    .select({ id: users.id, email: users.email, totpSecret: users.totpSecret, totpPendingSecret: users.totpPendingSecret, totpEnabledAt: users.totpEnabledAt, totpLastStep: users.totpLastStep })
    .from(users)
    .where(eq(users.id, userId));
  return row ?? null;
}

/** Whether the account has two-factor sign-in on. */
export async function hasTwoFactor(ctx: Pick<ServiceContext, "store">, userId: string): Promise<boolean> {
  return (await userRow(ctx, userId))?.totpEnabledAt != null;
}

/** How many unused recovery codes the account has left. */
export async function recoveryCodesLeft(ctx: ServiceContext, userId: string): Promise<number> {
  const { recoveryCodes: r } = ctx.store.t;
  const rows = await ctx.store.db.select({ id: r.id }).from(r).where(and(eq(r.userId, userId), isNull(r.usedAt)));
  return rows.length;
}

/** A new secret for the user to add to an authenticator app; replaces an unconfirmed one. */
export async function setupTwoFactor(ctx: ServiceContext, user: SessionUser): Promise<{ secret: string; otpauthUrl: string }> {
  const row = await userRow(ctx, user.userId);
  if (row?.totpEnabledAt) throw new ConflictError("Two-factor sign-in is already on. Turn it off first to move it to another device.");
  const secret = newTotpSecret();
  const { users } = ctx.store.t;
  await ctx.store.write((tx) => tx.update(users).set({ totpPendingSecret: encryptSecret(serverKey(ctx), secret, sealContext(user.userId)) }).where(eq(users.id, user.userId)));
  return { secret, otpauthUrl: otpauthUrl({ issuer: ISSUER, account: user.email, secret }) };
}

/** Confirms the new secret with a code from the app: two-factor sign-in is on; answers the recovery codes (shown once). */
export async function enableTwoFactor(ctx: ServiceContext, user: SessionUser, code: string): Promise<{ recoveryCodes: string[] }> {
  const row = await userRow(ctx, user.userId);
  if (row?.totpEnabledAt) throw new ConflictError("Two-factor sign-in is already on.");
  if (!row?.totpPendingSecret) throw new ConflictError("Start the set-up first: a new secret is made when you choose Turn on two-factor sign-in.");
  await admitCodeAttempt(ctx, user.userId);
  const secret = base32Decode(decryptSecret(serverKey(ctx), row.totpPendingSecret, sealContext(user.userId)))!;
  const step = await verifyTotp(secret, code.replace(/\s/g, ""), ctx.now());
  if (step === null) throw new ValidationError(WRONG_CODE_MESSAGE, { code: "That code is not right" });
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const { users, recoveryCodes } = ctx.store.t;
  const now = ctx.now();
  await ctx.store.write(async (tx) => {
    await tx.update(users).set({ totpSecret: row.totpPendingSecret, totpPendingSecret: null, totpEnabledAt: now, totpLastStep: step }).where(eq(users.id, user.userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.userId));
    await tx.insert(recoveryCodes).values(codes.map((c) => ({ userId: user.userId, codeHash: hashToken(normalizeRecoveryCode(c)), createdAt: now })));
  });
  await clearAttempts(ctx.store, "2fa:user", user.userId);
  return { recoveryCodes: codes };
}

/** Turns two-factor sign-in off after a good code (from the app or a recovery code). */
export async function disableTwoFactor(ctx: ServiceContext, user: SessionUser, code: string): Promise<void> {
  if (!(await hasTwoFactor(ctx, user.userId))) throw new ConflictError("Two-factor sign-in is not on for this account.");
  await admitCodeAttempt(ctx, user.userId);
  if (!(await checkSecondFactor(ctx, user.userId, code))) throw new ValidationError(WRONG_CODE_MESSAGE, { code: "That code is not right" });
  const { users, recoveryCodes } = ctx.store.t;
  await ctx.store.write(async (tx) => {
    await tx.update(users).set({ totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, user.userId));
    await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.userId));
  });
}

/**
 * True when `code` is the account's current TOTP code (not one already used: the step is
 * recorded in the same statement that accepts it) or an unused recovery code (used up here).
 * The caller counted the attempt first (admitCodeAttempt).
 */
export async function checkSecondFactor(ctx: ServiceContext, userId: string, code: string): Promise<boolean> {
  const row = await userRow(ctx, userId);
  if (!row?.totpSecret || !row.totpEnabledAt) return false;
  const typed = code.trim().replace(/\s/g, "");
  const { users, recoveryCodes: r } = ctx.store.t;
  if (/^\d{6}$/.test(typed)) {
    const secret = base32Decode(decryptSecret(serverKey(ctx), row.totpSecret, sealContext(userId)))!;
    const step = await verifyTotp(secret, typed, ctx.now(), { usedStep: row.totpLastStep });
    if (step === null) return false;
    const taken = await ctx.store.write((tx) =>
      tx
        .update(users)
        .set({ totpLastStep: step })
        .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
        .returning({ id: users.id }),
    );
    return taken.length > 0;
  }
  const normalized = normalizeRecoveryCode(typed);
  if (normalized.length !== 10) return false;
  const used = await ctx.store.write((tx) =>
    tx
      .update(r)
      .set({ usedAt: ctx.now() })
      .where(and(eq(r.userId, userId), eq(r.codeHash, hashToken(normalized)), isNull(r.usedAt)))
      .returning({ id: r.id }),
  );
  return used.length > 0;
}

/** Forgets the account's code attempts (after a good code). */
export const clearCodeAttempts = (ctx: ServiceContext, userId: string) => clearAttempts(ctx.store, "2fa:user", userId);

