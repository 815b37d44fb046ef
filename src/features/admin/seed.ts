import { eq } from "drizzle-orm";
import type { DB } from "../../db";
import { adminUsers } from "../../db/schema";

/**
 * Creates the Master Administrator, or updates its password when it exists: running
 * `serve --seed-admin USER:PASS` twice never makes two accounts.
 */
export async function seedAdmin(db: DB, username: string, password: string): Promise<"created" | "updated"> {
  if (password.length < 8) throw new Error("the admin password must be at least 8 characters");
  const passwordHash = await Bun.password.hash(password, { algorithm: "argon2id" });
  const existing = db.select({ id: adminUsers.id }).from(adminUsers).where(eq(adminUsers.username, username)).get();
  if (existing) {
    db.update(adminUsers).set({ passwordHash }).where(eq(adminUsers.id, existing.id)).run();
    return "updated";
  }
  db.insert(adminUsers).values({ username, passwordHash }).run();
  return "created";
}
