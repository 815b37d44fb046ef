import { Elysia } from "elysia";
import { DatabaseBusyError } from "../db/store";
import type { Logger } from "../log";
import { jsonError, ServiceError } from "./errors";

/** Maps every thrown error to the JSON error shape; unexpected ones are logged, never leaked. */
export function errorPlugin(log: Logger) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, ({ error, code }) => {
    if (error instanceof ServiceError) return jsonError(error.status, error.code, error.message, error.fields, error.headers);
    if (error instanceof DatabaseBusyError) {
      return jsonError(503, "database_busy", "The server is too busy to save this change right now; nothing was saved. Please try again in a few seconds.", undefined, { "retry-after": "5" });
    }
    switch (code) {
      case "NOT_FOUND":
        return jsonError(404, "not_found", "No such endpoint.");
      case "PARSE":
        return jsonError(400, "bad_request", "The request body could not be read. Send valid JSON with Content-Type: application/json.");
      case "VALIDATION":
        return jsonError(400, "validation_failed", "The request is not valid.");
      case "INVALID_COOKIE_SIGNATURE":
        return jsonError(401, "unauthorized", "Please sign in to continue.");
    }
    const status = (error as { status?: number })?.status;
    if (status === 413) return jsonError(413, "payload_too_large", "The request is too large.");
    log.error("unhandled_error", { error: error instanceof Error ? error.stack ?? error.message : String(error) });
    return jsonError(500, "internal_error", "Something went wrong on our side. Please try again; if it keeps happening, contact support.");
  });
}
