import { Elysia } from "elysia";
import { z } from "zod";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput } from "../../http/errors";
import { trendsQuerySchema } from "../trends/contract";
import { recordsCsv } from "./export";
import { auditRequest } from "../audit/service";

/** ?days= 1–400 (30 when not given), ?domain= one of the organisation's domains. */
const recordsCsvQuerySchema = z.object({ days: trendsQuerySchema.shape.days, domain: trendsQuerySchema.shape.domain });

/** GET /api/records.csv: the organisation's aggregate records as a streamed CSV download. */
export function exportRoutes(deps: AppDeps) {
  return new Elysia({ name: "reports-export" })
    .use(access(deps))
    .get(
      "/api/records.csv",
      async ({ ctx, query, request }) => {
        const input = parseInput(recordsCsvQuerySchema, query);
        const { stream, fileName } = await recordsCsv(ctx, input);
        await auditRequest(ctx, request, "data.exported", { target: fileName, data: { days: input.days ?? null, domain: input.domain ?? null } });
        return new Response(stream, {
          headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${fileName}"`, "cache-control": "no-store" },
        });
      },
      { org: "read" },
    );
}
