import { Elysia } from "elysia";
import { z } from "zod";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { ForbiddenError, parseInput, UnauthorizedError } from "../../http/errors";
import { readCookie } from "../../http/tenant";
import { loginSchema, type MeResponse, PASSWORD_LINK_SENT_MESSAGE, type TwoFactorChallenge, passwordLinkSchema, passwordTokenSchema, resetPasswordSchema, signupSchema } from "./contract";
import { clearedSessionCookie, sessionCookie } from "./cookie";
import { type LinkSignIn, LOGIN_FAILED_MESSAGE, login, me, meOf, openSession, signup, userById } from "./service";
import { pendingLoginCookie, startPendingLogin } from "./pending-login";
import { twoFactorRoutes } from "./two-factor-routes";
import { auditSecurityEvent, auditSignInFailure } from "./security-audit";
import { describePasswordLink, requestPasswordLink, resetPassword } from "./password-links";
import { deleteSession, SESSION_COOKIE } from "./sessions";
import { awaitingVerification, signupWithVerification, VERIFICATION_SENT_MESSAGE, verifyEmail } from "./email-verification";
import { notifyOwnerOfFailures } from "./failure-notice";
import { admitLoginAttempt, admitPasswordLinkRequest, recordLoginFailure, recordLoginSuccess, rememberAddress } from "./throttle";

/**
 * A link that signs its user in (a password reset, an email confirmation): the address counts as
 * one the account signs in from and the use goes to the audit log. Then the session cookie is
 * set and the answer is the account, or, with two-factor sign-in on, the pending-login cookie and
 * the same { twoFactorRequired } as the password step, so POST /api/auth/login/2fa comes next.
 */
async function signedInByLink(
  ctx: Pick<AppDeps, "server" | "config" | "store"> & { now: () => Date },
  request: Request,
  set: { headers: Record<string, string | number> },
  link: "password reset" | "email confirmation",
  signIn: LinkSignIn,
): Promise<MeResponse | TwoFactorChallenge> {
  const user = await userById(ctx, signIn.userId);
  if (!user) throw new UnauthorizedError();
  const address = clientAddress(ctx, request);
  await rememberAddress(ctx, { scope: "login", address, account: user.email });
  await auditSecurityEvent(ctx, {
    orgId: signIn.orgId,
    actor: { kind: "user", id: user.id, label: user.email },
    action: "auth.link_sign_in",
    address,
    data: signIn.session ? { link } : { link, twoFactor: "code asked next" },
  });
  set.headers["cache-control"] = "no-store";
  if (!signIn.session) {
    set.headers["set-cookie"] = pendingLoginCookie(ctx.config, signIn.pendingLogin);
    return { twoFactorRequired: true };
  }
  set.headers["set-cookie"] = sessionCookie(ctx.config, signIn.session);
  return me(ctx, signIn.userId, signIn.orgId);
}

/** Email + password accounts: signup, login, logout, me, password and confirmation links. */
export function authRoutes(deps: AppDeps) {
  return new Elysia({ name: "auth" })
    .use(access(deps))
    .use(twoFactorRoutes(deps))
    .post(
      "/api/auth/signup",
      async ({ ctx, body, request, set }) => {
        const address = clientAddress(ctx, request);
        await ctx.limiter.hit("signup", address, 10, 3600, "Too many accounts created from this address. Please try again in an hour.");
        const input = parseInput(signupSchema, body);
        set.headers["cache-control"] = "no-store";
        if (ctx.mailer) {
          // the same answer whether or not the email has an account
          await signupWithVerification({ ...ctx, mailer: ctx.mailer }, input);
          set.status = 202;
          return { verificationSent: true, message: VERIFICATION_SENT_MESSAGE };
        }
        const { token, userId, orgId } = await signup(ctx, input);
        await rememberAddress(ctx, { scope: "login", address, account: input.email });
        set.status = 201;
        set.headers["set-cookie"] = sessionCookie(ctx.config, token);
        return me(ctx, userId, orgId);
      },
      { public: true },
    )
    .post(
      "/api/auth/login",
      async ({ ctx, body, request, set }) => {
        const input = parseInput(loginSchema, body);
        const keys = { scope: "login", address: clientAddress(ctx, request), account: input.email };
        await admitLoginAttempt(ctx, keys);
        const checked = await login(ctx, input);
        if (!checked) {
          if (await recordLoginFailure(ctx, keys)) await notifyOwnerOfFailures(ctx, input.email);
          await auditSignInFailure(ctx, input.email, keys.address, "password");
          throw new UnauthorizedError(LOGIN_FAILED_MESSAGE);
        }
        if (await awaitingVerification(ctx, checked.userId)) {
          throw new ForbiddenError("Confirm your email address first: open the link we sent you. Signing up again with the same details sends a new one.");
        }
        await recordLoginSuccess(ctx, keys);
        set.headers["cache-control"] = "no-store";
        if (checked.twoFactor) {
          // no session yet: a short-lived, single-use pending login until POST /api/auth/login/2fa gets a good code
          set.headers["set-cookie"] = pendingLoginCookie(ctx.config, await startPendingLogin(ctx, checked.userId));
          return { twoFactorRequired: true } satisfies TwoFactorChallenge;
        }
        const result = await openSession(ctx, checked.userId);
        await auditSecurityEvent(ctx, { orgId: result.orgId, actor: { kind: "user", id: result.userId, label: input.email }, action: "auth.sign_in", address: keys.address });
        set.headers["set-cookie"] = sessionCookie(ctx.config, result.token);
        return me(ctx, result.userId, result.orgId);
      },
      { public: true },
    )
    .post(
      "/api/auth/logout",
      async ({ ctx, request, set }) => {
        const token = readCookie(request, SESSION_COOKIE);
        if (token) await deleteSession(ctx, token);
        set.headers["set-cookie"] = clearedSessionCookie(ctx.config);
        return { success: true };
      },
      { public: true },
    )
    .post(
      "/api/auth/password-link",
      async ({ ctx, body, request, set }) => {
        // the same answer whether or not the address has an account; limited per address and per email
        const { email } = parseInput(passwordLinkSchema, body);
        await admitPasswordLinkRequest(ctx, clientAddress(ctx, request), email);
        await requestPasswordLink(ctx, email);
        set.headers["cache-control"] = "no-store";
        return { success: true, message: PASSWORD_LINK_SENT_MESSAGE };
      },
      { public: true },
    )
    .post(
      "/api/auth/password-link/lookup",
      async ({ ctx, body, request, set }) => {
        await ctx.limiter.hit("password-link-lookup", clientAddress(ctx, request), 30, 600);
        const { token } = parseInput(z.object({ token: passwordTokenSchema }), body);
        set.headers["cache-control"] = "no-store";
        return describePasswordLink(ctx, token);
      },
      { public: true },
    )
    .post(
      "/api/auth/reset-password",
      async ({ ctx, body, request, set }) => {
        await ctx.limiter.hit("reset-password", clientAddress(ctx, request), 20, 900);
        const input = parseInput(resetPasswordSchema, body);
        return signedInByLink(ctx, request, set, "password reset", await resetPassword(ctx, input));
      },
      { public: true },
    )
    .post(
      "/api/auth/verify-email",
      async ({ ctx, body, request, set }) => {
        await ctx.limiter.hit("verify-email", clientAddress(ctx, request), 30, 600);
        const { token } = parseInput(z.object({ token: passwordTokenSchema }), body);
        return signedInByLink(ctx, request, set, "email confirmation", await verifyEmail(ctx, token));
      },
      { public: true },
    )
    .get(
      "/api/auth/me",
      ({ ctx, set }) => {
        set.headers["cache-control"] = "no-store";
        return meOf(ctx, ctx.user);
      },
      { signedIn: true },
    );
}
