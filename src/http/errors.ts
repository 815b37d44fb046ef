import type { ZodType } from "zod";

/**
 * The errors a service may raise. Routes never build error responses by hand: they throw
 * one of these and the error plugin maps it to DESIGN.md's JSON shape and status code.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}
export class ValidationError extends ServiceError {
  constructor(message: string, fields?: Record<string, string>) {
    super(400, "validation_failed", message, fields);
  }
}
export class UnauthorizedError extends ServiceError {
  constructor(message = "Please sign in to continue.") {
    super(401, "unauthorized", message);
  }
}
export class ForbiddenError extends ServiceError {
  constructor(message = "Your role does not allow this. Ask an owner or admin of the organization.") {
    super(403, "forbidden", message);
  }
}
export class NotFoundError extends ServiceError {
  constructor(message = "Not found.") {
    super(404, "not_found", message);
  }
}
/** 402: the organisation is read-only until billing is sorted out (canceled, or trial ended without a card). */
export class PaymentRequiredError extends ServiceError {
  constructor(message: string) {
    super(402, "payment_required", message);
  }
}
export class ConflictError extends ServiceError {
  constructor(message: string, fields?: Record<string, string>) {
    super(409, "conflict", message, fields);
  }
}
export class PayloadTooLargeError extends ServiceError {
  constructor(message: string) {
    super(413, "payload_too_large", message);
  }
}
export class RateLimitedError extends ServiceError {
  constructor(retryAfterSeconds: number, message = `Too many requests. Please wait ${retryAfterSeconds} seconds and try again.`) {
    super(429, "rate_limited", message, undefined, { "retry-after": String(retryAfterSeconds) });
  }
}

export function errorBody(code: string, message: string, fields?: Record<string, string>) {
  return { error: fields && Object.keys(fields).length ? { code, message, fields } : { code, message } };
}

export function jsonError(status: number, code: string, message: string, fields?: Record<string, string>, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(errorBody(code, message, fields)), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/**
 * Validates input against a Zod schema (the same schema the UI's form uses) and returns the
 * typed value, or throws a ValidationError whose fields carry each field's first message.
 */
export function parseInput<T>(schema: ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const key = issue.path.length ? issue.path.join(".") : "_";
    fields[key] ??= issue.message;
  }
  const first = Object.values(fields)[0] ?? "The request is not valid.";
  throw new ValidationError(first, fields);
}

// errorPlugin (the app's onError mapping) is in ./error-plugin: the services that throw these
// errors do not load Elysia with them.
