import { eq } from "drizzle-orm";
import type { DB } from "../../db";
import { adminUsers } from "../../db/schema";
import { passwordSchema } from "../auth/contract";

/**
 * Creates the Master Administrator, or updates its password when it exists: running
 * `serve --seed-admin USER:PASS` twice never makes two accounts. The password follows the
 * same rule as every user's (passwordSchema).
 */
export async function seedAdmin(db: DB, username: string, password: string): Promise<"created" | "updated"> {
  const rule = passwordSchema.safeParse(password);
  if (!rule.success) throw new Error(`the admin password is refused: ${rule.error.issues[0]?.message ?? "invalid"}`);
  const passwordHash = await Bun.password.hash(password, { algorithm: "argon2id" });
  const existing = db.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.username, username)).get();
  if (existing) {
    db.update(adminUsers).set({ passwordHash }).where(eq(adminUsers.id, existing.id)).run();
    return "updated";
  }
  db.insert(adminUsers).values({ username, passwordHash }).run();
  return "created";
}
