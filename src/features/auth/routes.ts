import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { clientAddress } from "../../http/client";
import { parseInput, UnauthorizedError } from "../../http/errors";
import { currentUser, readCookie } from "../../http/tenant";
import { loginSchema, signupSchema } from "./contract";
import { clearedSessionCookie, sessionCookie } from "./cookie";
import { LOGIN_FAILED_MESSAGE, login, me, meOf, signup } from "./service";
import { deleteSession, SESSION_COOKIE } from "./sessions";
import { checkLoginThrottle, clearLoginFailures, recordLoginFailure } from "./throttle";

/** Email + password accounts: signup, login, logout, me. */
export function authRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Elysia({ name: "auth" })
    .post("/api/auth/signup", async ({ body, request, set }) => {
      deps.limiter.hit("signup", clientAddress(deps, request), 10, 3600, "Too many accounts created from this address. Please try again in an hour.");
      const input = parseInput(signupSchema, body);
      const { token, userId, orgId } = await signup(db, input, deps.now());
      set.status = 201;
      set.headers["set-cookie"] = sessionCookie(deps.config, token);
      set.headers["cache-control"] = "no-store";
      return me(db, userId, orgId);
    })
    .post("/api/auth/login", async ({ body, request, set }) => {
      const input = parseInput(loginSchema, body);
      const keys = { scope: "login", address: clientAddress(deps, request), account: input.email };
      await checkLoginThrottle(deps, keys);
      const result = await login(db, input, deps.now());
      if (!result) {
        recordLoginFailure(deps, keys);
        throw new UnauthorizedError(LOGIN_FAILED_MESSAGE);
      }
      clearLoginFailures(deps, keys);
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
    .get("/api/auth/me", ({ request, set }) => {
      const session = currentUser(db, request);
      if (!session) throw new UnauthorizedError();
      set.headers["cache-control"] = "no-store";
      return meOf(db, session);
    });
}

