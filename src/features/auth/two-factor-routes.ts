import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { parseInput, UnauthorizedError } from "../../http/errors";
import { readCookie } from "../../http/tenant";
import { twoFactorCodeSchema } from "./contract";
import { sessionCookie } from "./cookie";
import { consumePendingLogin, pendingLoginCookie, pendingLoginUser, PENDING_LOGIN_COOKIE, recordPendingFailure } from "./pending-login";
import { auditSecurityEvent, auditSignInFailure } from "./security-audit";
import { me, openSession, userById } from "./service";
import { auditTokensHeldBack } from "../tokens/service";
import { admitCodeAttempt, checkSecondFactor, clearCodeAttempts, disableTwoFactor, enableTwoFactor, setupTwoFactor, WRONG_CODE_MESSAGE } from "./two-factor";

const SIGN_IN_AGAIN = "Your sign-in has expired. Enter your email and password again.";

/**
 * Two-factor sign-in: the code step after the password (public: the pending-login cookie says
 * who), and set-up, enable and disable for the signed-in user (a session, never an API token).
 */
export function twoFactorRoutes(deps: AppDeps) {
  return new Elysia()
    .use(access(deps))
    .post(
      "/api/auth/login/2fa",
      async ({ ctx, body, request, set }) => {
        const { code } = parseInput(twoFactorCodeSchema, body);
        const address = clientAddress(ctx, request);
        await ctx.limiter.hit("login-2fa", address, 30, 900, "Too many codes tried from this address. Please wait 15 minutes and try again.");
        const pending = await pendingLoginUser(ctx, readCookie(request, PENDING_LOGIN_COOKIE));
        if (!pending) throw new UnauthorizedError(SIGN_IN_AGAIN);
        await admitCodeAttempt(ctx, pending.userId);
        set.headers["cache-control"] = "no-store";
        if (!(await checkSecondFactor(ctx, pending.userId, code))) {
          await recordPendingFailure(ctx, pending.id);
          const who = await userById(ctx, pending.userId);
          if (who) await auditSignInFailure(ctx, who.email, address, "second factor");
          throw new UnauthorizedError(WRONG_CODE_MESSAGE);
        }
        if (!(await consumePendingLogin(ctx, pending.id))) throw new UnauthorizedError(SIGN_IN_AGAIN);
        await clearCodeAttempts(ctx, pending.userId);
        const session = await openSession(ctx, pending.userId);
        const user = await userById(ctx, pending.userId);
        await auditSecurityEvent(ctx, { orgId: session.orgId, actor: { kind: "user", id: pending.userId, label: user?.email ?? "" }, action: "auth.sign_in", address, data: { twoFactor: true } });
        set.headers["set-cookie"] = [sessionCookie(ctx.config, session.token), pendingLoginCookie(ctx.config, null)] as unknown as string;
        return me(ctx, session.userId, session.orgId);
      },
      { public: true },
    )
    .post(
      "/api/auth/2fa/setup",
      async ({ ctx, set }) => {
        set.headers["cache-control"] = "no-store";
        return setupTwoFactor(ctx, ctx.user);
      },
      { signedIn: true },
    )
    .post(
      "/api/auth/2fa/enable",
      async ({ ctx, body, request, set }) => {
        const { code } = parseInput(twoFactorCodeSchema, body);
        set.headers["cache-control"] = "no-store";
        const answer = await enableTwoFactor(ctx, ctx.user, code);
        await auditSecurityEvent(ctx, { orgId: ctx.user.currentOrgId, actor: { kind: "user", id: ctx.user.userId, label: ctx.user.email }, action: "auth.two_factor_enabled", address: clientAddress(ctx, request) });
        return answer;
      },
      { signedIn: true },
    )
    .post(
      "/api/auth/2fa/disable",
      async ({ ctx, body, request }) => {
        const { code } = parseInput(twoFactorCodeSchema, body);
        await disableTwoFactor(ctx, ctx.user, code);
        const actor = { kind: "user" as const, id: ctx.user.userId, label: ctx.user.email };
        const address = clientAddress(ctx, request);
        await auditSecurityEvent(ctx, { orgId: ctx.user.currentOrgId, actor, action: "auth.two_factor_disabled", address });
        // their tokens in organisations that require two-factor sign-in stop working now
        await auditTokensHeldBack(ctx, { createdBy: ctx.user.userId }, actor, address);
        return { success: true };
      },
      { signedIn: true },
    );
}
