/**
 * The first password of an account made by /trial (which asks for none), so its owner can
 * sign in again later from /login. An account that already has a password changes it elsewhere.
 */
import type { UserContext } from "../../http/access";
import { ConflictError, ValidationError } from "../../http/errors";
import { setFirstPasswordHash } from "../auth/service";
import { hashPassword } from "../auth/password-hash";

export async function setFirstPassword(ctx: UserContext, password: string): Promise<void> {
  const { user } = ctx;
  if (password.toLowerCase() === user.email.toLowerCase()) throw new ValidationError("Password must not be your email address", { password: "Password must not be your email address" });
  const passwordHash = await hashPassword(password);
  if (!(await setFirstPasswordHash(ctx, user.userId, passwordHash))) throw new ConflictError("Your account already has a password. Sign in with it, or reset it from the sign-in page.");
}
