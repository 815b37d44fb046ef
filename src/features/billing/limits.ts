// OWNED BY the billing work (issue 7). Other features call these before a write; each throws a
// ServiceError (403 naming the limit and the plan that lifts it, or 402 when read-only).
import type { DB } from "../../db";

export function assertCanAddDomain(_db: DB, _orgId: string): void {}
export function assertCanAddMember(_db: DB, _orgId: string): void {}
export function assertWritable(_db: DB, _orgId: string): void {}
