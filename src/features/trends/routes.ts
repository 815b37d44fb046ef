import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { topSourcesQuerySchema, trendsQuerySchema } from "./contract";
import { topSources, trendSeries } from "./service";

/** Trends of the current organisation, from the daily roll-ups. */
export function trendsRoutes(deps: AppDeps) {
  return new Elysia({ name: "trends" })
    .use(access(deps))
    .get("/api/trends", ({ ctx, query }) => trendSeries(ctx, parseInput(trendsQuerySchema, query)), { org: "read" })
    .get("/api/trends/sources", ({ ctx, query }) => topSources(ctx, parseInput(topSourcesQuerySchema, query)), { org: "read" });
}
