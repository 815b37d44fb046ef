import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { AUDIT_ACTIONS } from "./actions";
import { AUDIT_PAGE_DEFAULT, auditQuerySchema, type AuditPage } from "./contract";
import { listAudit } from "./service";

/** The organisation's audit log: read by admins and owners; there is no route that changes it. */
export function auditRoutes(deps: AppDeps) {
  return new Elysia({ name: "audit" }).use(access(deps)).get(
    "/api/audit",
    async ({ ctx, query, set }): Promise<AuditPage> => {
      const input = parseInput(auditQuerySchema, query);
      set.headers["cache-control"] = "no-store";
      const page = await listAudit(ctx, { action: input.action, actor: input.actor, cursor: input.cursor, limit: input.limit ?? AUDIT_PAGE_DEFAULT });
      return { ...page, actions: AUDIT_ACTIONS };
    },
    { org: "audit:read" },
  );
}
