import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { parseInput, PayloadTooLargeError, ServiceError, ValidationError } from "../../http/errors";
import { clientAddress } from "../../http/client";
import { requireActor } from "../../http/tenant";
import { listFailureTlsQuerySchema, listReportsQuerySchema, MAX_FILE_NAME, MAX_UPLOAD_FILES, sendersQuerySchema, type UploadResponse } from "./contract";
import { getFailureReport, getTlsReport, listFailureReports, listTlsReports } from "./failure-tls";
import { ingestFile, type IngestResult } from "./ingest";
import { sendPage } from "./paging";
import { listSenders } from "./senders-view";
import { getReport, listReports } from "./service";

/** Report upload and reading back, always in the signed-in user's current organisation. */
export function reportsRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Elysia({ name: "reports" })
    .post(
      "/api/reports/upload",
      async ({ request }): Promise<UploadResponse> => {
        const { orgId } = requireActor(db, request, "reports:upload");
        deps.limiter.hit("reports-upload", clientAddress(deps, request), 120, 60);
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
          results.push(await ingestFile(deps, { orgId, fileName: (file.name || "report").slice(0, MAX_FILE_NAME), bytes: new Uint8Array(await file.arrayBuffer()), source: "upload" }));
        }
        // a single file (or every file) over a size bound is a 413; otherwise each file says how it went
        if (results.every((r) => r.code === "too_large")) throw new PayloadTooLargeError(results[0]!.error!);
        // nothing could be stored (the database stayed busy or failed): a temporary condition
        if (results.every((r) => r.code === "unavailable")) throw new ServiceError(503, "unavailable", results[0]!.error!, undefined, { "retry-after": "30" });
        return { results };
      },
      { parse: "none" },
    )
    .get("/api/dmarc-reports", ({ request, query, set }) => {
      const { orgId } = requireActor(db, request, "read");
      const page = parseInput(listReportsQuerySchema, query);
      return sendPage(set, "/api/dmarc-reports", page, listReports(db, orgId, page));
    })
    .get("/api/dmarc-reports/:id", ({ request, params }) => {
      const { orgId } = requireActor(db, request, "read");
      return getReport(db, orgId, params.id);
    })
    .get("/api/failure-reports", ({ request, query, set }) => {
      const { orgId } = requireActor(db, request, "read");
      const page = parseInput(listFailureTlsQuerySchema, query);
      return sendPage(set, "/api/failure-reports", page, listFailureReports(db, orgId, page));
    })
    .get("/api/failure-reports/:id", ({ request, params }) => {
      const { orgId } = requireActor(db, request, "read");
      return getFailureReport(db, orgId, params.id);
    })
    .get("/api/tls-reports", ({ request, query, set }) => {
      const { orgId } = requireActor(db, request, "read");
      const page = parseInput(listFailureTlsQuerySchema, query);
      return sendPage(set, "/api/tls-reports", page, listTlsReports(db, orgId, page));
    })
    .get("/api/tls-reports/:id", ({ request, params }) => {
      const { orgId } = requireActor(db, request, "read");
      return getTlsReport(db, orgId, params.id);
    })
    .get("/api/senders", ({ request, query }) => {
      const { orgId } = requireActor(db, request, "read");
      const { days, domain } = parseInput(sendersQuerySchema, query);
      return listSenders(deps.store.sqlite, orgId, { days, domain, now: deps.now() });
    });
}
