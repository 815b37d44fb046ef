import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import type { AppDeps } from "../../deps";
import { sendInBackground } from "../mail/mailer";
import { signInFailuresMail } from "../mail/templates";
import { NOTIFY_AFTER_FAILURES } from "./throttle";

/** Tells an account's owner about repeated failed sign-ins (when mail is on and the address is verified). */
export function notifyOwnerOfFailures(deps: Pick<AppDeps, "store" | "log" | "mailer">, email: string): void {
  if (!deps.mailer) return;
  const user = deps.store.db.select({ name: users.name, email: users.email, verifiedAt: users.emailVerifiedAt }).from(users).where(eq(users.email, email.toLowerCase())).get();
  if (!user?.verifiedAt) return;
  const link = `${deps.mailer.publicUrl}/login`;
  sendInBackground(deps.mailer, deps.log, "sign_in_failures", signInFailuresMail({ to: user.email, name: user.name, failures: NOTIFY_AFTER_FAILURES, link }));
}
