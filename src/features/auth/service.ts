import { and, eq, inArray, isNull } from "drizzle-orm";
import { isUniqueViolation } from "../../db/store";
import type { ServiceContext } from "../../http/access";
import { ConflictError, UnauthorizedError } from "../../http/errors";
import { organizationsOf, orgSummary } from "../orgs/directory";
import { createOwnedOrganization } from "../orgs/service";
import { twoFactorRequiredIn } from "../settings/two-factor-policy";
import type { LoginInput, MeResponse, SignupInput } from "./contract";
import { createSession, deleteSessionsOf, type SessionUser, type WithStore } from "./sessions";
import { hashPassword, verifyPassword } from "./password-hash";
import { startPendingLogin } from "./pending-login";

export const LOGIN_FAILED_MESSAGE = "Email or password is incorrect.";

export interface SignedIn {
  token: string;
  userId: string;
  orgId: string | null;
}

const emailTaken = () => new ConflictError("An account with this email already exists. Sign in instead.", { email: "An account with this email already exists" });

/** True when a failed insert broke the unique email rule (both databases name the column or its index). */
export const isEmailTaken = (error: unknown) => isUniqueViolation(error) && /email/i.test(String((error as Error)?.message ?? error));

/** The user with this (any-case) email, or null. */
export async function userByEmail({ store }: WithStore, email: string) {
  const [user] = await store.db.select().from(store.t.users).where(eq(store.t.users.email, email.toLowerCase()));
  return user ?? null;
}

/** The user's name and email, or null. */
export async function userById({ store }: WithStore, userId: string): Promise<{ id: string; name: string; email: string } | null> {
  const { users } = store.t;
  const [user] = await store.db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, userId));
  return user ?? null;
}

/** Names and emails of these users (an organisation's member list), by id. */
export async function usersByIds({ store }: WithStore, userIds: string[]): Promise<Map<string, { id: string; name: string; email: string; emailVerifiedAt: Date | null }>> {
  const { users } = store.t;
  if (!userIds.length) return new Map();
  const rows = await store.db.select({ id: users.id, name: users.name, email: users.email, emailVerifiedAt: users.emailVerifiedAt }).from(users).where(inArray(users.id, [...new Set(userIds)]));
  return new Map(rows.map((row) => [row.id, row]));
}

/** Creates a user without an organisation (the demo seed adds the membership itself); returns the id. */
export async function createUser({ store }: WithStore, user: { name: string; email: string; passwordHash: string | null }): Promise<string> {
  const { users } = store.t;
  const [row] = await store.write((tx) => tx.insert(users).values({ ...user, email: user.email.toLowerCase() }).returning({ id: users.id }));
  return row!.id;
}

/** Sets the password of a user who has none yet (an account made by /trial); false when one is set already. */
export async function setFirstPasswordHash({ store }: WithStore, userId: string, passwordHash: string): Promise<boolean> {
  const { users } = store.t;
  const updated = await store.write((tx) =>
    tx
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.id, userId), isNull(users.passwordHash)))
      .returning({ id: users.id }),
  );
  return updated.length > 0;
}

/** Replaces a user's password and ends their sessions (the demo owner's new password: `seed-demo --reset-password`). */
export async function replacePasswordHash(ctx: WithStore, userId: string, passwordHash: string): Promise<void> {
  const { users } = ctx.store.t;
  await ctx.store.write(async (tx) => {
    await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
    await deleteSessionsOf(ctx, userId);
  });
}

/** Renames a user (the trial form sent again with another name). */
export async function setUserName({ store }: WithStore, userId: string, name: string): Promise<void> {
  const { users } = store.t;
  await store.write((tx) => tx.update(users).set({ name }).where(eq(users.id, userId)));
}

/**
 * Creates a user and an organisation they own, in one transaction (joins the caller's, if any).
 * `passwordHash` null: the user sets a password later (the trial flow).
 */
export async function createAccount(
  ctx: WithStore,
  account: { userId?: string; name: string; email: string; passwordHash: string | null; organization: { id?: string; name: string; plan?: string; planStatus?: string; trialEndsAt?: Date | null } },
): Promise<{ userId: string; orgId: string }> {
  const { users } = ctx.store.t;
  return ctx.store.write(async (tx) => {
    const [user] = await tx
      .insert(users)
      .values({ ...(account.userId ? { id: account.userId } : {}), name: account.name, email: account.email.toLowerCase(), passwordHash: account.passwordHash })
      .returning({ id: users.id });
    const orgId = await createOwnedOrganization(ctx, { ...account.organization, ownerId: user!.id });
    return { userId: user!.id, orgId };
  });
}

/** Creates the user, an organisation they own, and a session in it. */
export async function signup(ctx: ServiceContext, input: Required<SignupInput>): Promise<SignedIn> {
  const email = input.email.toLowerCase();
  const passwordHash = await hashPassword(input.password);
  if (await userByEmail(ctx, email)) throw emailTaken();
  try {
    return await ctx.store.write(async () => {
      const { userId, orgId } = await createAccount(ctx, { name: input.name, email, passwordHash, organization: { name: input.organization } });
      return { userId, orgId, token: await createSession(ctx, userId, orgId, ctx.now()) };
    });
  } catch (e) {
    if (isEmailTaken(e)) throw emailTaken();
    throw e;
  }
}

/**
 * Checks the password; on success the user, the organisation a session would start in (their
 * first) and whether a second-factor code must come before any session is opened.
 */
export async function login(ctx: ServiceContext, input: Required<LoginInput>): Promise<{ userId: string; orgId: string | null; twoFactor: boolean } | null> {
  const user = await userByEmail(ctx, input.email);
  const ok = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !ok) return null;
  const first = (await organizationsOf(ctx, user.id))[0] ?? null;
  return { userId: user.id, orgId: first?.id ?? null, twoFactor: user.totpEnabledAt !== null };
}

/** Opens a session for a user in their first organisation (after the password and, when on, the second factor). */
export async function openSession(ctx: ServiceContext, userId: string): Promise<SignedIn> {
  const first = (await organizationsOf(ctx, userId))[0] ?? null;
  return { userId, orgId: first?.id ?? null, token: await createSession(ctx, userId, first?.id ?? null, ctx.now()) };
}

/**
 * What a link that signs in (a password reset, an email confirmation) opens: a session, or only a
 * pending login when the account has two-factor sign-in on, since a link proves the mailbox and
 * not the second factor.
 */
export type LinkSignIn = { userId: string; orgId: string | null } & ({ session: string; pendingLogin: null } | { session: null; pendingLogin: string });

/** Opens what a used link grants (see LinkSignIn). Inside a `write` it joins that transaction. */
export async function signInByLink(ctx: Pick<ServiceContext, "store" | "now">, userId: string, now: Date): Promise<LinkSignIn> {
  const orgId = (await organizationsOf(ctx, userId))[0]?.id ?? null;
  const { users } = ctx.store.t;
  const [user] = await ctx.store.db.select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  if (user?.totpEnabledAt) return { userId, orgId, session: null, pendingLogin: await startPendingLogin(ctx, userId) };
  return { userId, orgId, session: await createSession(ctx, userId, orgId, now), pendingLogin: null };
}

/** The signed-in user, the organisations they may act in and the current one. */
export async function me(ctx: WithStore, userId: string, currentOrgId: string | null): Promise<MeResponse> {
  const user = await userById(ctx, userId);
  if (!user) throw new UnauthorizedError();
  const organizations = await organizationsOf(ctx, userId);
  const currentOrg = await orgSummary(ctx, userId, currentOrgId);
  const { users } = ctx.store.t;
  const [totp] = await ctx.store.db.select({ enabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  const twoFactor = { enabled: totp?.enabledAt != null, required: currentOrg ? await twoFactorRequiredIn(ctx, currentOrg.id) : false };
  return { user, organizations, currentOrg, twoFactor };
}

export function meOf(ctx: WithStore, session: SessionUser): Promise<MeResponse> {
  return me(ctx, session.userId, session.currentOrgId);
}
