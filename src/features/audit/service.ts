/**
 * The audit log: an append-only record per organisation of who did what, when and from where.
 *
 *   await recordAudit(ctx, { orgId, actor: auditActor(ctx.actor), action: "domain.added", target: name, address })
 *
 * `recordAudit` writes through `ctx.store.write`, so called inside a caller's `store.write` it
 * joins that transaction (the record and the change commit or roll back together). There is no
 * verb that updates or deletes a record: rows leave only with their organisation.
 * Secrets never go in: values of keys that name a secret (password, secret, token, code, key, …)
 * are replaced before the row is written.
 */
import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { OrgContext, ServiceContext } from "../../http/access";
import { clientAddress } from "../../http/client";
import type { AuditActorKind } from "../../db/schema/audit";
import type { AuditAction } from "./actions";

export interface AuditActor {
  kind: AuditActorKind;
  /** the user's or token's id; null for the system */
  id: string | null;
  /** an email address, a token's name, "system" */
  label: string;
}

export interface AuditInput {
  orgId: string;
  actor: AuditActor;
  action: AuditAction;
  target?: string | null;
  /** the client's address (`clientAddress(ctx, request)`) */
  address?: string | null;
  data?: Record<string, unknown> | null;
}

export const SYSTEM_ACTOR: AuditActor = { kind: "system", id: null, label: "system" };

/** Keys whose values are never stored (matched on the key's name, at any depth). */
const SECRET_KEY = /pass(word)?|secret|token|api[-_]?key|private|credential|recovery|otp|totp|code|hash|cookie|session|authorization/i;
/** Keys that name a secret's harmless description. */
const HARMLESS_KEY = /^(tokenName|tokenId|tokenRole|sessionCount|hasPassword|postalCode|countryCode)$/;

/** `data` with the values of secret-looking keys replaced, strings cut to 500 characters. */
export function scrubAuditData(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value.length > 500 ? `${value.slice(0, 500)}…` : value;
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (value instanceof Date) return value.toISOString();
  if (depth > 4) return "…";
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => scrubAuditData(v, depth + 1));
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      out[key] = SECRET_KEY.test(key) && !HARMLESS_KEY.test(key) ? "[redacted]" : scrubAuditData(v, depth + 1);
    }
    return out;
  }
  return String(value);
}

/**
 * Appends one record. Takes anything with the store and the clock (a route's ctx, the app's
 * deps); inside a caller's `store.write` it is part of that transaction.
 */
export async function recordAudit(ctx: Pick<ServiceContext, "store" | "now">, input: AuditInput): Promise<void> {
  const { auditLog } = ctx.store.t;
  const data = input.data ? JSON.stringify(scrubAuditData(input.data)) : null;
  await ctx.store.write(async (tx) => {
    await tx.insert(auditLog).values({
      // time-ordered (UUIDv7): records of the same second keep the order they were written in
      id: Bun.randomUUIDv7(),
      orgId: input.orgId,
      at: ctx.now(),
      actorKind: input.actor.kind,
      actorId: input.actor.id,
      actorLabel: input.actor.label.slice(0, 320),
      action: input.action,
      target: input.target ? input.target.slice(0, 500) : null,
      address: input.address ? input.address.slice(0, 100) : null,
      data,
    });
  });
}

/**
 * Who acted, from a route's actor: the signed-in user, or the API token when the request
 * carried one (`actor.token`, set by the token door).
 */
export function auditActor(actor: { user: { userId: string; email: string }; token?: { id: string; name: string } | null }): AuditActor {
  if (actor.token) return { kind: "token", id: actor.token.id, label: actor.token.name };
  return { kind: "user", id: actor.user.userId, label: actor.user.email };
}

/** `recordAudit` for the organisation and actor of a tenant route. */
export function auditOrg(ctx: OrgContext, action: AuditAction, rest: { target?: string | null; address?: string | null; data?: Record<string, unknown> | null } = {}): Promise<void> {
  return recordAudit(ctx, { orgId: ctx.actor.orgId, actor: auditActor(ctx.actor as OrgContext["actor"] & { token?: { id: string; name: string } | null }), action, ...rest });
}

/** `auditOrg` from a route, with the request's client address. */
export function auditRequest(ctx: OrgContext, request: Request, action: AuditAction, rest: { target?: string | null; data?: Record<string, unknown> | null } = {}): Promise<void> {
  return auditOrg(ctx, action, { ...rest, address: clientAddress(ctx, request) });
}

export interface AuditEntry {
  id: string;
  at: string;
  actorKind: AuditActorKind;
  actorId: string | null;
  actorLabel: string;
  action: string;
  target: string | null;
  address: string | null;
  data: Record<string, unknown> | null;
}

export interface AuditQuery {
  action?: string;
  /** a user's or token's id */
  actor?: string;
  limit: number;
  /** the opaque cursor of the previous page */
  cursor?: string | null;
}

const encodeCursor = (at: Date, id: string) => Buffer.from(`${Math.floor(at.getTime() / 1000)}:${id}`).toString("base64url");
function decodeCursor(cursor: string): { at: Date; id: string } | null {
  const m = /^(\d{1,12}):([\w-]{1,64})$/.exec(Buffer.from(cursor, "base64url").toString());
  return m ? { at: new Date(Number(m[1]) * 1000), id: m[2]! } : null;
}

/** One page of the organisation's records, newest first, and the cursor of the next page. */
export async function listAudit(ctx: OrgContext, query: AuditQuery): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
  const { auditLog: a } = ctx.store.t;
  const where: SQL[] = [eq(a.orgId, ctx.actor.orgId)];
  if (query.action) where.push(eq(a.action, query.action));
  if (query.actor) where.push(eq(a.actorId, query.actor));
  if (query.cursor) {
    const after = decodeCursor(query.cursor);
    if (after) where.push(or(lt(a.at, after.at), and(eq(a.at, after.at), lt(a.id, after.id)))!);
  }
  const rows = await ctx.store.db
    .select()
    .from(a)
    .where(and(...where))
    .orderBy(desc(a.at), desc(a.id))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    entries: page.map((r) => ({
      id: r.id,
      at: r.at.toISOString(),
      actorKind: r.actorKind,
      actorId: r.actorId,
      actorLabel: r.actorLabel,
      action: r.action,
      target: r.target,
      address: r.address,
      data: r.data ? (JSON.parse(r.data) as Record<string, unknown>) : null,
    })),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last.at, last.id) : null,
  };
}
