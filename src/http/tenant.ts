import type { Role } from "../db/schema";
import { resolveSession, SESSION_COOKIE, type SessionUser } from "../features/auth/sessions";
import { effectiveRole } from "../features/orgs/directory";
import { roleAllows, type Permission } from "../lib/permissions";
import { assertWritable } from "../features/billing/limits";
import type { ServiceContext } from "./access";
import { ForbiddenError, ServiceError, UnauthorizedError } from "./errors";
import { resolveApiToken } from "../features/tokens/service";
import { twoFactorRequiredIn } from "../features/settings/two-factor-policy";
import { hasTwoFactor } from "../features/auth/two-factor";

/** Permissions that still work while an organisation is read-only (see features/billing/limits). */
const READ_ONLY_ALLOWED = new Set<Permission>(["read", "dns:lookup", "billing:manage"]);

/**
 * Who is acting and in which organisation: always derived from the verified session, or from
 * an API token (then `token` is set and `user` is the token's creator, named as the token).
 */
export interface Actor {
  user: SessionUser;
  orgId: string;
  role: Role;
  token?: { id: string; name: string } | null;
}

/** 403 for a member of an organisation that requires two-factor sign-in, before they turned it on. */
export class TwoFactorRequiredError extends ServiceError {
  constructor(message = "This organization requires two-factor sign-in. Turn it on for your account first (Settings → Two-factor sign-in).") {
    super(403, "two_factor_required", message);
  }
}

export const TOKEN_TWO_FACTOR_MESSAGE =
  "This organization requires two-factor sign-in, and the person who created this API token has not turned it on. The token works again once they turn it on for their account (Settings → Two-factor sign-in).";

/**
 * A token acts for its creator, so it follows the creator's sign-in rule: while the organisation
 * requires two-factor sign-in, the tokens of a creator without it are held back (not revoked:
 * they work again once the creator turns it on or the rule is lifted).
 */
async function heldBackByTwoFactor(ctx: Pick<ServiceContext, "store">, actor: Actor): Promise<boolean> {
  return (await twoFactorRequiredIn(ctx, actor.orgId)) && !(await hasTwoFactor(ctx, actor.user.userId));
}

/** The token of an `Authorization: Bearer …` header, or null when the request carries none. */
export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization");
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

const TOKEN_REFUSED = "This API token is not valid: it was revoked, has expired, or its creator no longer belongs to the organization.";

/** The API token's actor: its organisation, its role (capped by its creator's), named as the token. */
async function tokenActor(ctx: Pick<ServiceContext, "store" | "now">, token: string): Promise<Actor | null> {
  const holder = await resolveApiToken(ctx, token);
  if (!holder) return null;
  const user: SessionUser = {
    sessionId: "",
    userId: holder.creator.id,
    name: `API token "${holder.tokenName}"`,
    email: holder.creator.email,
    hasPassword: false,
    twoFactorEnabled: false,
    currentOrgId: holder.orgId,
  };
  return { user, orgId: holder.orgId, role: holder.role, token: { id: holder.tokenId, name: holder.tokenName } };
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
  const bearer = bearerToken(request);
  if (bearer !== null) {
    const actor = await tokenActor(ctx, bearer);
    return actor && !(await heldBackByTwoFactor(ctx, actor)) ? actor : null;
  }
  const user = await currentUser(ctx, request);
  if (!user?.currentOrgId) return null;
  const role = await effectiveRole(ctx, user.userId, user.currentOrgId);
  if (!role || (!user.twoFactorEnabled && (await twoFactorRequiredIn(ctx, user.currentOrgId)))) return null;
  return { user, orgId: user.currentOrgId, role };
}

/**
 * The signed-in user acting in their current organisation with at least `permission`.
 * 401 when signed out or without a current organisation they still belong to; 403 when
 * their role does not allow the action.
 */
export async function requireActor(ctx: ServiceContext, request: Request, permission: Permission = "read"): Promise<Actor> {
  // the token door: a request that carries a token is judged by the token alone (its cookie is not looked at)
  const bearer = bearerToken(request);
  if (bearer !== null) {
    const actor = await tokenActor(ctx, bearer);
    if (!actor) throw new UnauthorizedError(TOKEN_REFUSED);
    if (await heldBackByTwoFactor(ctx, actor)) throw new TwoFactorRequiredError(TOKEN_TWO_FACTOR_MESSAGE);
    if (!roleAllows(actor.role, permission)) throw new ForbiddenError(`This API token's role (${actor.role}) does not allow this.`);
    if (!READ_ONLY_ALLOWED.has(permission)) await assertWritable(ctx, actor.orgId);
    return actor;
  }
  const user = await currentUser(ctx, request);
  if (!user) throw new UnauthorizedError();
  if (!user.currentOrgId) throw new UnauthorizedError("Choose an organization first.");
  const role = await effectiveRole(ctx, user.userId, user.currentOrgId);
  if (!role) throw new UnauthorizedError("You are no longer a member of this organization. Choose another one.");
  // an organisation that requires two-factor sign-in: members without it enrol before anything else
  if (!user.twoFactorEnabled && (await twoFactorRequiredIn(ctx, user.currentOrgId))) throw new TwoFactorRequiredError();
  if (!roleAllows(role, permission)) throw new ForbiddenError();
  // A canceled or unpaid-trial organisation is read-only (402); billing itself stays reachable.
  if (!READ_ONLY_ALLOWED.has(permission)) await assertWritable(ctx, user.currentOrgId);
  return { user, orgId: user.currentOrgId, role };
}
