import type { ServiceContext } from "../../http/access";
import { sendInBackground } from "../mail/mailer";
import { signInFailuresMail } from "../mail/templates";
import { userByEmail } from "./service";
import { NOTIFY_AFTER_FAILURES } from "./throttle";

/** Tells an account's owner about repeated failed sign-ins (when mail is on and the address is verified). */
export async function notifyOwnerOfFailures(ctx: Pick<ServiceContext, "store" | "log" | "mailer">, email: string): Promise<void> {
  if (!ctx.mailer) return;
  const user = await userByEmail(ctx, email);
  if (!user?.emailVerifiedAt) return;
  const link = `${ctx.mailer.publicUrl}/login`;
  sendInBackground(ctx.mailer, ctx.log, "sign_in_failures", signInFailuresMail({ to: user.email, name: user.name, failures: NOTIFY_AFTER_FAILURES, link }));
}
