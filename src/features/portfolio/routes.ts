import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { getClientReport, saveClientReport } from "./client-reports";
import { importSchema } from "./contract";
import { importClients, portfolio } from "./service";

/** The MSP portfolio and bulk onboarding (owners and admins of a managing organization). */
export function portfolioRoutes(deps: AppDeps) {
  return new Elysia({ name: "portfolio" })
    .use(access(deps))
    // a read: open while the organization is read-only; the service lets owners and admins only
    .get("/api/portfolio", ({ ctx }) => portfolio(ctx), { org: "read" })
    // a client's weekly report to its outside contacts (the service lets the managing organization's owners and admins only)
    .get("/api/portfolio/clients/:id/report", ({ ctx, params }) => getClientReport(ctx, params.id), { org: "read" })
    .put("/api/portfolio/clients/:id/report", ({ ctx, params, body }) => saveClientReport(ctx, params.id, body), { org: "clients:manage" })
    .post(
      "/api/portfolio/import",
      async ({ ctx, body }) => {
        const { csv, dryRun } = parseInput(importSchema, body);
        const { addedDomainIds, ...result } = await importClients(ctx, csv, dryRun);
        // the first DNS check of each added domain is queued, as for a domain added by hand
        for (const id of addedDomainIds) {
          try {
            deps.onDomainAdded?.(id);
          } catch (e) {
            deps.log.error("on_domain_added_failed", { error: e instanceof Error ? e.message : String(e) });
          }
        }
        return result;
      },
      { org: "clients:manage" },
    );
}
