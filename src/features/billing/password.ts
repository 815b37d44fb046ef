/**
 * The first password of an account made by /trial (which asks for none), so its owner can
 * sign in again later from /login. An account that already has a password changes it elsewhere.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { UserContext } from "../../http/access";
import { ConflictError, ValidationError } from "../../http/errors";

export async function setFirstPassword(ctx: UserContext, password: string): Promise<void> {
  const { user } = ctx;
  const { users } = ctx.store.t;
  if (password.toLowerCase() === user.email.toLowerCase()) throw new ValidationError("Password must not be your email address", { password: "Password must not be your email address" });
  const passwordHash = await Bun.password.hash(password, { algorithm: "argon2id" });
  const updated = await ctx.store.write((tx) =>
    tx
      .update(users)
      .set({ passwordHash })
      .where(and(eq(users.id, user.userId), isNull(users.passwordHash)))
      .returning({ id: users.id }),
  );
  if (!updated.length) throw new ConflictError("Your account already has a password. Sign in with it, or reset it from the sign-in page.");
}
