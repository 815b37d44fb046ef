import { eq } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";
import { passwordSchema } from "../auth/contract";
import { hashPassword } from "../auth/password-hash";

/**
 * Creates the Master Administrator, or updates its password when it exists: running
 * `serve --seed-admin USER:PASS` twice never makes two accounts. The password follows the
 * same rule as every user's (passwordSchema).
 */
export async function seedAdmin(ctx: Pick<ServiceContext, "store">, username: string, password: string): Promise<"created" | "updated"> {
  const rule = passwordSchema.safeParse(password);
  if (!rule.success) throw new Error(`the admin password is refused: ${rule.error.issues[0]?.message ?? "invalid"}`);
  const passwordHash = await hashPassword(password);
  const { adminUsers } = ctx.store.t;
  return ctx.store.write(async (tx) => {
    const [existing] = await tx.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.username, username));
    if (existing) {
      await tx.update(adminUsers).set({ passwordHash }).where(eq(adminUsers.id, existing.id));
      return "updated";
    }
    await tx.insert(adminUsers).values({ username, passwordHash });
    return "created";
  });
}
