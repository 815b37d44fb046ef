import type { Role } from "../db/schema";
import { resolveSession, SESSION_COOKIE, type SessionUser } from "../features/auth/sessions";
import { effectiveRole } from "../features/orgs/directory";
import { roleAllows, type Permission } from "../lib/permissions";
import { assertWritable } from "../features/billing/limits";
import type { ServiceContext } from "./access";
import { ForbiddenError, UnauthorizedError } from "./errors";

/** Permissions that still work while an organisation is read-only (see features/billing/limits). */
const READ_ONLY_ALLOWED = new Set<Permission>(["read", "dns:lookup", "billing:manage"]);

/** Who is acting and in which organisation: always derived from the verified session. */
export interface Actor {
  user: SessionUser;
  orgId: string;
  role: Role;
}

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) return decodeURIComponent(part.slice(i + 1).trim());
  }
  return null;
}

/** The signed-in user, or null. */
export function currentUser(ctx: Pick<ServiceContext, "store" | "now">, request: Request): Promise<SessionUser | null> {
  return resolveSession(ctx, readCookie(request, SESSION_COOKIE), ctx.now());
}

/**
 * The signed-in user in their current organisation, or null when signed out, without a
 * current organisation or no longer a member of it: for public routes that do more for a
 * signed-in caller (never throws).
 */
export async function optionalActor(ctx: Pick<ServiceContext, "store" | "now">, request: Request): Promise<Actor | null> {
  const user = await currentUser(ctx, request);
  if (!user?.currentOrgId) return null;
  const role = await effectiveRole(ctx, user.userId, user.currentOrgId);
  return role ? { user, orgId: user.currentOrgId, role } : null;
}

/**
 * The signed-in user acting in their current organisation with at least `permission`.
 * 401 when signed out or without a current organisation they still belong to; 403 when
 * their role does not allow the action.
 */
export async function requireActor(ctx: ServiceContext, request: Request, permission: Permission = "read"): Promise<Actor> {
  const user = await currentUser(ctx, request);
  if (!user) throw new UnauthorizedError();
  if (!user.currentOrgId) throw new UnauthorizedError("Choose an organisation first.");
  const role = await effectiveRole(ctx, user.userId, user.currentOrgId);
  if (!role) throw new UnauthorizedError("You are no longer a member of this organisation. Choose another one.");
  if (!roleAllows(role, permission)) throw new ForbiddenError();
  // A canceled or unpaid-trial organisation is read-only (402); billing itself stays reachable.
  if (!READ_ONLY_ALLOWED.has(permission)) await assertWritable(ctx, user.currentOrgId);
  return { user, orgId: user.currentOrgId, role };
}
