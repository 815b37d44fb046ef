import { Elysia } from "elysia";
import { z } from "zod";
import type { AppDeps } from "../../deps";
import { clientAddress } from "../../http/client";
import { ForbiddenError, parseInput, UnauthorizedError } from "../../http/errors";
import { currentUser, readCookie } from "../../http/tenant";
import { loginSchema, PASSWORD_LINK_SENT_MESSAGE, passwordLinkSchema, passwordTokenSchema, resetPasswordSchema, signupSchema } from "./contract";
import { clearedSessionCookie, sessionCookie } from "./cookie";
import { LOGIN_FAILED_MESSAGE, login, me, meOf, signup } from "./service";
import { describePasswordLink, requestPasswordLink, resetPassword } from "./password-links";
import { deleteSession, SESSION_COOKIE } from "./sessions";
import { awaitingVerification, signupWithVerification, VERIFICATION_SENT_MESSAGE, verifyEmail } from "./email-verification";
import { notifyOwnerOfFailures } from "./failure-notice";
import { admitLoginAttempt, admitPasswordLinkRequest, recordLoginFailure, recordLoginSuccess, rememberAddress } from "./throttle";

/** Email + password accounts: signup, login, logout, me. */
export function authRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Elysia({ name: "auth" })
    .post("/api/auth/signup", async ({ body, request, set }) => {
      deps.limiter.hit("signup", clientAddress(deps, request), 10, 3600, "Too many accounts created from this address. Please try again in an hour.");
      const input = parseInput(signupSchema, body);
      const address = clientAddress(deps, request);
      set.headers["cache-control"] = "no-store";
      if (deps.mailer) {
        // the same answer whether or not the email has an account
        await signupWithVerification({ ...deps, mailer: deps.mailer }, input, deps.now());
        set.status = 202;
        return { verificationSent: true, message: VERIFICATION_SENT_MESSAGE };
      }
      const { token, userId, orgId } = await signup(db, input, deps.now());
      rememberAddress(deps, { scope: "login", address, account: input.email });
      set.status = 201;
      set.headers["set-cookie"] = sessionCookie(deps.config, token);
      set.headers["cache-control"] = "no-store";
      return me(db, userId, orgId);
    })
    .post("/api/auth/login", async ({ body, request, set }) => {
      const input = parseInput(loginSchema, body);
      const keys = { scope: "login", address: clientAddress(deps, request), account: input.email };
      admitLoginAttempt(deps, keys);
      const result = await login(db, input, deps.now());
      if (!result) {
        if (recordLoginFailure(deps, keys)) notifyOwnerOfFailures(deps, input.email);
        throw new UnauthorizedError(LOGIN_FAILED_MESSAGE);
      }
      if (awaitingVerification(db, result.userId)) {
        deleteSession(db, result.token);
        throw new ForbiddenError("Confirm your email address first: open the link we sent you. Signing up again with the same details sends a new one.");
      }
      recordLoginSuccess(deps, keys);
      set.headers["set-cookie"] = sessionCookie(deps.config, result.token);
      set.headers["cache-control"] = "no-store";
      return me(db, result.userId, result.orgId);
    })
    .post("/api/auth/logout", ({ request, set }) => {
      const token = readCookie(request, SESSION_COOKIE);
      if (token) deleteSession(db, token);
      set.headers["set-cookie"] = clearedSessionCookie(deps.config);
      return { success: true };
    })
    .post("/api/auth/password-link", ({ body, request, set }) => {
      // the same answer whether or not the address has an account; limited per address and per email
      const { email } = parseInput(passwordLinkSchema, body);
      admitPasswordLinkRequest(deps, clientAddress(deps, request), email);
      requestPasswordLink(deps, email, deps.now());
      set.headers["cache-control"] = "no-store";
      return { success: true, message: PASSWORD_LINK_SENT_MESSAGE };
    })
    .post("/api/auth/password-link/lookup", ({ body, request, set }) => {
      deps.limiter.hit("password-link-lookup", clientAddress(deps, request), 30, 600);
      const { token } = parseInput(z.object({ token: passwordTokenSchema }), body);
      set.headers["cache-control"] = "no-store";
      return describePasswordLink(db, token, deps.now());
    })
    .post("/api/auth/reset-password", async ({ body, request, set }) => {
      deps.limiter.hit("reset-password", clientAddress(deps, request), 20, 900);
      const input = parseInput(resetPasswordSchema, body);
      const result = await resetPassword(db, input.token, input.password, deps.now());
      const email = me(db, result.userId, result.orgId).user.email;
      rememberAddress(deps, { scope: "login", address: clientAddress(deps, request), account: email });
      set.headers["set-cookie"] = sessionCookie(deps.config, result.token);
      set.headers["cache-control"] = "no-store";
      return me(db, result.userId, result.orgId);
    })
    .post("/api/auth/verify-email", ({ body, request, set }) => {
      deps.limiter.hit("verify-email", clientAddress(deps, request), 30, 600);
      const { token } = parseInput(z.object({ token: passwordTokenSchema }), body);
      const result = verifyEmail(db, token, deps.now());
      rememberAddress(deps, { scope: "login", address: clientAddress(deps, request), account: me(db, result.userId, result.orgId).user.email });
      set.headers["set-cookie"] = sessionCookie(deps.config, result.token);
      set.headers["cache-control"] = "no-store";
      return me(db, result.userId, result.orgId);
    })
    .get("/api/auth/me", ({ request, set }) => {
      const session = currentUser(db, request);
      if (!session) throw new UnauthorizedError();
      set.headers["cache-control"] = "no-store";
      return meOf(db, session);
    });
}

