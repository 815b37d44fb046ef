import { eq } from "drizzle-orm";
import { writeTransactionDb } from "../../db/transaction";
import type { DB } from "../../db";
import { memberships, organizations, users } from "../../db/schema";
import { ConflictError, UnauthorizedError } from "../../http/errors";
import { organizationsOf, orgSummary, uniqueSlug } from "../orgs/directory";
import type { LoginInput, MeResponse, SignupInput } from "./contract";
import { createSession, type SessionUser } from "./sessions";
import { verifyPassword } from "./throttle";

export const LOGIN_FAILED_MESSAGE = "Email or password is incorrect.";

/** Creates the user, an organisation they own, and a session in it. */
export async function signup(db: DB, input: Required<SignupInput>, now: Date): Promise<{ token: string; userId: string; orgId: string }> {
  const email = input.email.toLowerCase();
  const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
  const taken = () => new ConflictError("An account with this email already exists. Sign in instead.", { email: "An account with this email already exists" });
  if (db.select({ id: users.id }).from(users).where(eq(users.email, email)).get()) throw taken();
  try {
    return writeTransactionDb(db, (tx) => {
      const userId = tx.insert(users).values({ name: input.name, email, passwordHash }).returning({ id: users.id }).get().id;
      const orgId = tx.insert(organizations).values({ name: input.organization, slug: uniqueSlug(tx as unknown as DB, input.organization) }).returning({ id: organizations.id }).get().id;
      tx.insert(memberships).values({ orgId, userId, role: "owner" }).run();
      return { userId, orgId, token: createSession(tx as unknown as DB, userId, orgId, now) };
    });
  } catch (e) {
    if (String(e).includes("UNIQUE") && String(e).includes("users.email")) throw taken();
    throw e;
  }
}

/** Checks the password; on success opens a session in the user's first organisation. */
export async function login(db: DB, input: Required<LoginInput>, now: Date): Promise<{ token: string; userId: string; orgId: string | null } | null> {
  const user = db.select().from(users).where(eq(users.email, input.email.toLowerCase())).get();
  const ok = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !ok) return null;
  const first = organizationsOf(db, user.id)[0] ?? null;
  return { userId: user.id, orgId: first?.id ?? null, token: createSession(db, user.id, first?.id ?? null, now) };
}

export function me(db: DB, userId: string, currentOrgId: string | null): MeResponse {
  const user = db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(eq(users.id, userId)).get();
  if (!user) throw new UnauthorizedError();
  const organizations = organizationsOf(db, userId);
  const currentOrg = orgSummary(db, userId, currentOrgId);
  return { user, organizations, currentOrg };
}

export function meOf(db: DB, session: SessionUser): MeResponse {
  return me(db, session.userId, session.currentOrgId);
}
