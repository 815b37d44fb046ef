import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { parseInput, PayloadTooLargeError, ServiceError, ValidationError } from "../../http/errors";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { listFailureTlsQuerySchema, listReportsQuerySchema, markSenderSchema, MAX_FILE_NAME, MAX_UPLOAD_FILES, senderDetailQuerySchema, sendersQuerySchema, type UploadResponse } from "./contract";
import { getFailureReport, getTlsReport, listFailureReports, listTlsReports } from "./failure-tls";
import { ingestFile, type IngestResult } from "./ingest";
import { sendPage } from "./paging";
import { markSender } from "./sender-marks";
import { getSender } from "./sender-page";
import { listSenders } from "./senders-view";
import { getReport, listReports } from "./service";

/** Report upload and reading back, always in the signed-in user's current organisation. */
export function reportsRoutes(deps: AppDeps) {
  return new Elysia({ name: "reports" })
    .use(access(deps))
    .post(
      "/api/reports/upload",
      async ({ ctx, request }): Promise<UploadResponse> => {
        const { orgId } = ctx.actor;
        await deps.limiter.hit("reports-upload", clientAddress(deps, request), 120, 60);
        let form: FormData;
        try {
          form = await request.formData();
        } catch {
          throw new ValidationError("Send the report files as multipart/form-data (field name \"files\").");
        }
        const files = ([...form.values()] as unknown[]).filter((v): v is File => v instanceof File);
        if (files.length === 0) throw new ValidationError("Choose at least one report file to upload.", { files: "Choose at least one report file" });
        if (files.length > MAX_UPLOAD_FILES) throw new PayloadTooLargeError(`Upload at most ${MAX_UPLOAD_FILES} files at a time.`);
        const results: IngestResult[] = [];
        for (const file of files) {
          results.push(await ingestFile(ctx, { orgId, fileName: (file.name || "report").slice(0, MAX_FILE_NAME), bytes: new Uint8Array(await file.arrayBuffer()), source: "upload" }));
        }
        // a single file (or every file) over a size bound is a 413; otherwise each file says how it went
        if (results.every((r) => r.code === "too_large")) throw new PayloadTooLargeError(results[0]!.error!);
        // nothing could be stored (the database stayed busy or failed): a temporary condition
        if (results.every((r) => r.code === "unavailable")) throw new ServiceError(503, "unavailable", results[0]!.error!, undefined, { "retry-after": "30" });
        return { results };
      },
      { parse: "none", org: "reports:upload" },
    )
    .get("/api/dmarc-reports", async ({ ctx, query, set }) => {
      const page = parseInput(listReportsQuerySchema, query);
      return sendPage(set, "/api/dmarc-reports", page, await listReports(ctx, page));
    }, { org: "read" })
    .get("/api/dmarc-reports/:id", ({ ctx, params }) => getReport(ctx, params.id), { org: "read" })
    .get("/api/failure-reports", async ({ ctx, query, set }) => {
      const page = parseInput(listFailureTlsQuerySchema, query);
      return sendPage(set, "/api/failure-reports", page, await listFailureReports(ctx, page));
    }, { org: "read" })
    .get("/api/failure-reports/:id", ({ ctx, params }) => getFailureReport(ctx, params.id), { org: "read" })
    .get("/api/tls-reports", async ({ ctx, query, set }) => {
      const page = parseInput(listFailureTlsQuerySchema, query);
      return sendPage(set, "/api/tls-reports", page, await listTlsReports(ctx, page));
    }, { org: "read" })
    .get("/api/tls-reports/:id", ({ ctx, params }) => getTlsReport(ctx, params.id), { org: "read" })
    .get("/api/senders", ({ ctx, query }) => listSenders(ctx, parseInput(sendersQuerySchema, query)), { org: "read" })
    .get("/api/senders/:key", ({ ctx, params, query }) => getSender(ctx, params.key, parseInput(senderDetailQuerySchema, query).days), { org: "read" })
    .put("/api/senders/:key/mark", ({ ctx, params, body }) => markSender(ctx, params.key, parseInput(markSenderSchema, body).verdict), { org: "senders:mark" });
}
