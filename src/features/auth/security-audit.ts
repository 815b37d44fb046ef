/**
 * Where sign-in, two-factor and API-token events go to the audit log (per organisation): the
 * organisation, the actor (a user, or a token by id and name), the action and the address —
 * never a secret. An event without an organisation (a user in none) is not recorded.
 */
import type { ServiceContext } from "../../http/access";
import type { AuditAction } from "../audit/actions";
import { recordAudit } from "../audit/service";
import { organizationsOf } from "../orgs/directory";
import { userByEmail } from "./service";

export interface SecurityEvent {
  orgId: string | null;
  actor: { kind: "user" | "token"; id: string; label: string };
  action: AuditAction;
  target?: string | null;
  address?: string | null;
  data?: Record<string, unknown> | null;
}

export async function auditSecurityEvent(ctx: Pick<ServiceContext, "store" | "now">, event: SecurityEvent): Promise<void> {
  if (!event.orgId) return;
  await recordAudit(ctx, { ...event, orgId: event.orgId });
}

/** A failed sign-in of an existing account, recorded in its first organisation (an unknown email records nothing). */
export async function auditSignInFailure(ctx: ServiceContext, email: string, address: string, step: "password" | "second factor"): Promise<void> {
  const user = await userByEmail(ctx, email);
  if (!user) return;
  const first = (await organizationsOf(ctx, user.id))[0];
  await auditSecurityEvent(ctx, { orgId: first?.id ?? null, actor: { kind: "user", id: user.id, label: user.email }, action: "auth.sign_in_failed", address, data: { step } });
}
