/**
 * Who may call a route, declared once per route, and the service context built from it.
 *
 *   .get("/api/domains", ({ ctx }) => listDomains(ctx), { org: "read" })
 *
 * Each route names exactly one kind of access; its macro verifies the caller and resolves
 * `ctx`, the only way a handler reaches the store and the actor:
 *
 *   public: true        anyone; `ctx.actor()` gives the signed-in caller, or an API token's actor, if any (never throws)
 *   signedIn: true      a signed-in user (session cookie), with or without a current organisation (401 otherwise);
 *                       never an API token: these routes are the user's own (me, two-factor set-up, …)
 *   org: <permission>   a member of the current organisation whose role allows the permission, or an
 *                       `Authorization: Bearer` API token of the organisation whose role allows it (then
 *                       the cookie is not looked at; `ctx.actor.token` names the token)
 *                       (401 / 403; 402 while the organisation is read-only, except for reads; 403
 *                       two_factor_required for a member without two-factor sign-in where the owner requires it,
 *                       and for a token such a member created)
 *   admin: true         a valid X-Admin-Session of the Master Administrator (401); never a session or a token
 *
 * The three credentials are separate doors: tests/server/three-doors.test.ts walks every route.
 *
 * The organisation id comes only from the verified session: services take it from
 * `ctx.actor.orgId`, never from the request. `access.test.ts` walks every route of the app and
 * fails for one that declares no access.
 */
import { Elysia } from "elysia";
import type { AppDeps } from "../deps";
import type { SessionUser } from "../features/auth/sessions";
import { requireAdmin } from "../features/admin/service";
import type { Permission } from "../lib/permissions";
import { currentUser, optionalActor, requireActor, type Actor } from "./tenant";
import { UnauthorizedError } from "./errors";

/** What every service verb gets: the app's dependencies (store, clock, log, config, …). */
export type ServiceContext = AppDeps;
/** A public route's context: the caller may or may not be signed in. */
export interface PublicContext extends ServiceContext {
  /** the signed-in caller in their current organisation, or null */
  actor(): Promise<Actor | null>;
}
export interface UserContext extends ServiceContext {
  user: SessionUser;
}
export interface OrgContext extends ServiceContext {
  actor: Actor;
}
export interface AdminContext extends ServiceContext {
  admin: { adminId: string };
}

/** The kind of access a route declared, as recorded in its `detail` for the route walk. */
export type AccessKind = "public" | "signedIn" | `org:${Permission}` | "admin";
export const ACCESS_DETAIL = "x-access";

/**
 * A route that used two macros would keep only the last one's `x-access` (Elysia merges the
 * details), so each kind also leaves its own key: the route walk counts those.
 */
const declared = (kind: AccessKind) => ({ [ACCESS_DETAIL]: kind, [`${ACCESS_DETAIL}:${kind}`]: true }) as Record<string, unknown>;

/** The access kinds a route's detail records (exactly one for a well-declared route). */
export function declaredAccess(detail: Record<string, unknown> | undefined): string[] {
  const prefix = `${ACCESS_DETAIL}:`;
  return Object.keys(detail ?? {})
    .filter((key) => key.startsWith(prefix) && detail![key] === true)
    .map((key) => key.slice(prefix.length));
}

const plugins = new WeakMap<AppDeps, ReturnType<typeof accessPlugin>>();

/**
 * The guard macros, bound to the app's dependencies. Each feature's routes `.use(access(deps))`.
 * (Not a named plugin: Elysia de-duplicates named plugins across apps by name and seed, and
 * several apps with different dependencies live in one test process.)
 */
export function access(deps: AppDeps) {
  let plugin = plugins.get(deps);
  if (!plugin) plugins.set(deps, (plugin = accessPlugin(deps)));
  return plugin;
}

function accessPlugin(deps: AppDeps) {
  return new Elysia().macro({
    public: {
      detail: declared("public"),
      resolve: ({ request }): { ctx: PublicContext } => {
        let cached: Promise<Actor | null> | null = null;
        return { ctx: { ...deps, actor: () => (cached ??= optionalActor(deps, request)) } };
      },
    },
    signedIn: {
      detail: declared("signedIn"),
      resolve: async ({ request }): Promise<{ ctx: UserContext }> => {
        const user = await currentUser(deps, request);
        if (!user) throw new UnauthorizedError();
        return { ctx: { ...deps, user } };
      },
    },
    org: (permission: Permission) => ({
      detail: declared(`org:${permission}`),
      resolve: async ({ request }): Promise<{ ctx: OrgContext }> => ({ ctx: { ...deps, actor: await requireActor(deps, request, permission) } }),
    }),
    admin: {
      detail: declared("admin"),
      resolve: async ({ request }): Promise<{ ctx: AdminContext }> => ({ ctx: { ...deps, admin: await requireAdmin(deps, request.headers.get("x-admin-session")) } }),
    },
  });
}
