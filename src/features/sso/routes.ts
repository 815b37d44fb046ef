import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { parseInput } from "../../http/errors";
import { readCookie } from "../../http/tenant";
import { recordAudit } from "../audit/service";
import { pendingLoginCookie, startPendingLogin } from "../auth/pending-login";
import { sessionCookie } from "../auth/cookie";
import { saveSsoSchema, startSsoSchema, type SsoStartResponse } from "./contract";
import { finishSso, flowCookie, SSO_FLOW_COOKIE, SsoRefused, startSso } from "./flow";
import { checkSsoDomains, deleteSso, getSso, saveSso } from "./service";

/** A redirect that may set several cookies (Elysia's `set` keeps one Set-Cookie value). */
function redirect(location: string, cookies: string[]): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 302, headers });
}

/**
 * Single sign-on: the organisation's connection in Settings (admins and owners, signed in; API
 * tokens are refused), and the two public steps of signing in through it.
 */
export function ssoRoutes(deps: AppDeps) {
  return new Elysia({ name: "sso" })
    .use(access(deps))
    .get(
      "/api/sso",
      ({ ctx, request, set }) => {
        set.headers["cache-control"] = "no-store";
        return getSso(ctx, request);
      },
      { org: "settings:manage" },
    )
    .put(
      "/api/sso",
      async ({ ctx, body, request }) => {
        const input = parseInput(saveSsoSchema, body);
        const saved = await saveSso(ctx, input);
        await recordAudit(ctx, {
          orgId: ctx.actor.orgId,
          actor: { kind: "user", id: ctx.actor.user.userId, label: ctx.actor.user.email },
          action: "sso.configured",
          target: saved.view.issuer,
          address: clientAddress(ctx, request),
          data: { changed: saved.changed, issuer: saved.view.issuer, clientId: saved.view.clientId, allowedDomains: saved.view.allowedDomains, newUserRole: saved.view.newUserRole, enabled: saved.view.enabled },
        });
        return saved.view;
      },
      { org: "settings:manage" },
    )
    // asks DNS now for the pending allowed domains' proof records: the ones found may sign in from then on
    .post(
      "/api/sso/domains/check",
      async ({ ctx, request, set }) => {
        await ctx.limiter.hit("sso-domain-check", ctx.actor.orgId, 30, 600, "Too many checks of the email domains. Please wait a few minutes and check again.");
        const { proved, ...answer } = await checkSsoDomains(ctx);
        if (proved.length) {
          await recordAudit(ctx, {
            orgId: ctx.actor.orgId,
            actor: { kind: "user", id: ctx.actor.user.userId, label: ctx.actor.user.email },
            action: "sso.configured",
            target: answer.connection.issuer,
            address: clientAddress(ctx, request),
            data: { changed: ["domains proved"], proved },
          });
        }
        set.headers["cache-control"] = "no-store";
        return answer;
      },
      { org: "settings:manage" },
    )
    .delete(
      "/api/sso",
      async ({ ctx, request }) => {
        const { issuer } = await deleteSso(ctx);
        await recordAudit(ctx, {
          orgId: ctx.actor.orgId,
          actor: { kind: "user", id: ctx.actor.user.userId, label: ctx.actor.user.email },
          action: "sso.configured",
          target: issuer,
          address: clientAddress(ctx, request),
          data: { changed: ["removed"] },
        });
        return { success: true };
      },
      { org: "settings:manage" },
    )
    .post(
      "/api/auth/sso/start",
      async ({ ctx, body, request, set }) => {
        await ctx.limiter.hit("sso-start", clientAddress(ctx, request), 30, 600, "Too many single sign-on attempts from this address. Please wait 10 minutes and try again.");
        const input = parseInput(startSsoSchema, body);
        const { redirectUrl, cookie } = await startSso(ctx, request, input);
        set.headers["cache-control"] = "no-store";
        set.headers["set-cookie"] = cookie;
        return { redirectUrl } satisfies SsoStartResponse;
      },
      { public: true },
    )
    .get(
      "/api/auth/sso/callback",
      async ({ ctx, request }) => {
        const address = clientAddress(ctx, request);
        const cleared = flowCookie(ctx.config, null);
        try {
          const done = await finishSso(ctx, request, readCookie(request, SSO_FLOW_COOKIE));
          if (done.joined) {
            await recordAudit(ctx, { orgId: done.orgId, actor: { kind: "user", id: done.userId, label: done.email }, action: "member.joined", target: done.email, address, data: { via: "single sign-on", role: done.role } });
          }
          if (done.twoFactor) {
            // the account's own second factor still applies: the sign-in page asks for the code
            const pending = await startPendingLogin(ctx, done.userId);
            return redirect(`/login?sso=code&next=${encodeURIComponent(done.next)}`, [cleared, pendingLoginCookie(ctx.config, pending)]);
          }
          await recordAudit(ctx, { orgId: done.orgId, actor: { kind: "user", id: done.userId, label: done.email }, action: "auth.sign_in", address, data: { method: "single sign-on", issuer: done.issuer } });
          return redirect(done.next, [cleared, sessionCookie(ctx.config, done.sessionToken!)]);
        } catch (error) {
          if (!(error instanceof SsoRefused)) throw error;
          ctx.log.warn("sso sign-in refused", { orgId: error.orgId, code: error.code, reason: error.reason });
          if (error.orgId) {
            await recordAudit(ctx, {
              orgId: error.orgId,
              actor: { kind: "user", id: null, label: error.email ?? "unknown (single sign-on)" },
              action: "auth.sign_in_failed",
              target: error.email,
              address,
              data: { step: "single sign-on", reason: error.reason },
            });
          }
          return redirect(`/login?sso_error=${error.code}`, [cleared]);
        }
      },
      { public: true },
    );
}
