/** GET /api/audit: the query it takes and the page it answers. */
import { z } from "zod";
import { AUDIT_ACTION_NAMES, type AuditAction } from "./actions";

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;

const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${AUDIT_PAGE_MAX}`;

export const auditQuerySchema = z.object({
  action: z
    .enum(AUDIT_ACTION_NAMES as [AuditAction, ...AuditAction[]], { error: `action must be one of: ${AUDIT_ACTION_NAMES.join(", ")}` })
    .optional(),
  /** the id of the user or API token that acted */
  actor: z.string().trim().min(1).max(64, "actor must be a user or token id").optional(),
  limit: z
    .string()
    .regex(/^\d{1,4}$/, LIMIT_MESSAGE)
    .transform(Number)
    .pipe(z.number().int().min(1, LIMIT_MESSAGE).max(AUDIT_PAGE_MAX, LIMIT_MESSAGE))
    .optional(),
  cursor: z.string().max(200, "cursor is not valid").optional(),
});

export const auditEntrySchema = z.object({
  id: z.string(),
  at: z.string().describe("ISO 8601 time"),
  actorKind: z.enum(["user", "token", "system"]),
  actorId: z.string().nullable(),
  actorLabel: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  address: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
});

export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  nextCursor: z.string().nullable(),
  /** the action names and their labels, for the filter */
  actions: z.record(z.string(), z.string()),
});
export type AuditPage = z.infer<typeof auditPageSchema>;
