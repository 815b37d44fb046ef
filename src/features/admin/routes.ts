import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { clientAddress } from "../../http/client";
import { parseInput } from "../../http/errors";
import { admitLoginAttempt, NOTIFY_AFTER_FAILURES, recordLoginFailure, recordLoginSuccess } from "../auth/throttle";
import { adminLoginSchema, adminLogoutSchema, type AdminLoginResponse } from "./contract";
import { adminLogin, adminLogout, listSubmissions, markSubmissionRead, requireAdmin } from "./service";

/**
 * The Master Administrator API (SPEC §6/§7). Wrong credentials answer 200 with success:false
 * so the console shows its Login Failed toast; every other admin call needs X-Admin-Session.
 */
export function adminRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Elysia({ name: "admin" })
    .post("/api/admin/login", async ({ body, request, set }): Promise<AdminLoginResponse> => {
      const input = parseInput(adminLoginSchema, body);
      const keys = { scope: "admin-login", address: clientAddress(deps, request), account: input.username.toLowerCase() };
      admitLoginAttempt(deps, keys);
      set.headers["cache-control"] = "no-store";
      const sessionId = await adminLogin(db, input.username, input.password, deps.now());
      if (!sessionId) {
        // the Master Administrator has no mail address: repeated failures are logged for the operator
        if (recordLoginFailure(deps, keys)) deps.log.warn("admin_login_failures_repeated", { failures: NOTIFY_AFTER_FAILURES });
        deps.log.warn("admin_login_failed", { address: keys.address });
        return { success: false, message: "Invalid credentials" };
      }
      recordLoginSuccess(deps, keys);
      deps.log.info("admin_login", { address: keys.address });
      return { success: true, sessionId, message: "Login successful" };
    })
    .post("/api/admin/logout", ({ body }) => {
      const { sessionId } = parseInput(adminLogoutSchema, body);
      adminLogout(db, sessionId);
      return { success: true, message: "Logged out" };
    })
    .get("/api/admin/contact-submissions", ({ request, set }) => {
      requireAdmin(db, request.headers.get("x-admin-session"), deps.now());
      set.headers["cache-control"] = "no-store";
      return listSubmissions(db);
    })
    .put("/api/admin/contact-submissions/:id/read", ({ request, params }) => {
      requireAdmin(db, request.headers.get("x-admin-session"), deps.now());
      return markSubmissionRead(db, params.id);
    });
}
