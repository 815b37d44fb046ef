import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { parseInput } from "../../http/errors";
import { admitLoginAttempt, NOTIFY_AFTER_FAILURES, recordLoginFailure, recordLoginSuccess } from "../auth/throttle";
import { listSubmissions, markSubmissionRead } from "../contact/service";
import { adminLoginSchema, adminLogoutSchema, type AdminLoginResponse } from "./contract";
import { adminLogin, adminLogout } from "./service";

/**
 * The Master Administrator API (SPEC §6/§7). Wrong credentials answer 401 with SPEC's body
 * (success:false and the message the console's Login Failed toast shows), so clients and
 * monitoring see a refusal; every other admin call needs X-Admin-Session.
 */
export function adminRoutes(deps: AppDeps) {
  return new Elysia({ name: "admin" })
    .use(access(deps))
    .post(
      "/api/admin/login",
      async ({ ctx, body, request, set }): Promise<AdminLoginResponse> => {
        const input = parseInput(adminLoginSchema, body);
        const keys = { scope: "admin-login", address: clientAddress(ctx, request), account: input.username.toLowerCase() };
        await admitLoginAttempt(ctx, keys);
        set.headers["cache-control"] = "no-store";
        const sessionId = await adminLogin(ctx, input);
        if (!sessionId) {
          // the Master Administrator has no mail address: repeated failures are logged for the operator
          if (await recordLoginFailure(ctx, keys)) ctx.log.warn("admin_login_failures_repeated", { failures: NOTIFY_AFTER_FAILURES });
          ctx.log.warn("admin_login_failed", { address: keys.address });
          set.status = 401;
          return { success: false, message: "Invalid credentials" };
        }
        await recordLoginSuccess(ctx, keys);
        ctx.log.info("admin_login", { address: keys.address });
        return { success: true, sessionId, message: "Login successful" };
      },
      { public: true },
    )
    .post(
      "/api/admin/logout",
      async ({ ctx, body }) => {
        const { sessionId } = parseInput(adminLogoutSchema, body);
        await adminLogout(ctx, sessionId);
        return { success: true, message: "Logged out" };
      },
      { public: true },
    )
    .get(
      "/api/admin/contact-submissions",
      ({ ctx, set }) => {
        set.headers["cache-control"] = "no-store";
        return listSubmissions(ctx);
      },
      { admin: true },
    )
    .put("/api/admin/contact-submissions/:id/read", ({ ctx, params }) => markSubmissionRead(ctx, params.id), { admin: true });
}
