import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { addDomainSchema } from "./contract";
import { addDomain, checkDomainNow, deleteDomain, listDomains } from "./service";
import { auditRequest } from "../audit/service";

/** Domain Management: the current organisation's domains (organisation from the session only). */
export function domainsRoutes(deps: AppDeps) {
  return new Elysia({ name: "domains" })
    .use(access(deps))
    .get("/api/domains", ({ ctx }) => listDomains(ctx), { org: "read" })
    .post(
      "/api/domains",
      async ({ ctx, body, set, request }) => {
        const { name } = parseInput(addDomainSchema, body);
        const domain = await addDomain(ctx, name);
        await auditRequest(ctx, request, "domain.added", { target: domain.name });
        try {
          deps.onDomainAdded?.(domain.id);
        } catch (e) {
          deps.log.error("on_domain_added_failed", { error: e instanceof Error ? e.message : String(e) });
        }
        set.status = 201;
        return domain;
      },
      { org: "domains:manage" },
    )
    .post("/api/domains/:id/check", ({ ctx, params }) => checkDomainNow(ctx, params.id), { org: "domains:manage" })
    .delete(
      "/api/domains/:id",
      async ({ ctx, params, request }) => {
        const name = (await listDomains(ctx)).find((d) => d.id === params.id)?.name ?? null;
        await deleteDomain(ctx, params.id);
        await auditRequest(ctx, request, "domain.removed", { target: name, data: { domainId: params.id } });
        return { success: true };
      },
      { org: "domains:manage" },
    );
}
