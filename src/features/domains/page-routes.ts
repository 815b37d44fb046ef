import { Elysia } from "elysia";
import { z } from "zod";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { domainHistory, domainOverview, MAX_HISTORY } from "./page";
import { domainEnforcement, domainSources } from "./readiness";

const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${MAX_HISTORY}`;
const BEFORE_MESSAGE = "before must be a time written as ISO 8601 (e.g. 2024-03-01T12:00:00Z)";
/** GET /api/domains/:id/history: ?limit= 1–200 (50 when not given), ?before= the previous page's nextBefore. */
export const domainHistoryQuerySchema = z.object({
  limit: z.coerce.number({ error: LIMIT_MESSAGE }).int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).max(MAX_HISTORY, LIMIT_MESSAGE).default(50),
  before: z
    .string({ error: BEFORE_MESSAGE })
    .max(40, BEFORE_MESSAGE)
    .refine((v) => !Number.isNaN(Date.parse(v)), BEFORE_MESSAGE)
    .transform((v) => new Date(v))
    .optional(),
});

/** A domain's own page: its overview and DNS change history (organisation from the session only). */
export function domainPageRoutes(deps: AppDeps) {
  return new Elysia({ name: "domain-page" })
    .use(access(deps))
    .get("/api/domains/:id", ({ ctx, params }) => domainOverview(ctx, params.id), { org: "read" })
    .get("/api/domains/:id/history", ({ ctx, params, query }) => domainHistory(ctx, params.id, parseInput(domainHistoryQuerySchema, query)), { org: "read" })
    .get("/api/domains/:id/enforcement", ({ ctx, params }) => domainEnforcement(ctx, params.id), { org: "read" })
    .get("/api/domains/:id/sources", ({ ctx, params }) => domainSources(ctx, params.id), { org: "read" });
}
