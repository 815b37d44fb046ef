import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { parseInput } from "../../http/errors";
import { requireActor } from "../../http/tenant";
import { addDomainSchema } from "./contract";
import { addDomain, deleteDomain, listDomains } from "./service";

/** Domain Management: the current organisation's domains (organisation from the session only). */
export function domainsRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Elysia({ name: "domains" })
    .get("/api/domains", ({ request }) => {
      const { orgId } = requireActor(db, request, "read");
      return listDomains(db, orgId);
    })
    .post("/api/domains", ({ request, body, set }) => {
      const { orgId } = requireActor(db, request, "domains:manage");
      const { name } = parseInput(addDomainSchema, body);
      const domain = addDomain(db, orgId, name);
      try {
        deps.onDomainAdded?.(domain.id);
      } catch (e) {
        deps.log.error("on_domain_added_failed", { error: e instanceof Error ? e.message : String(e) });
      }
      set.status = 201;
      return domain;
    })
    .delete("/api/domains/:id", ({ request, params }) => {
      const { orgId } = requireActor(db, request, "domains:manage");
      deleteDomain(db, orgId, params.id);
      return { success: true };
    });
}
