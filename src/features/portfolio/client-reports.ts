/**
 * Client reports (issue 17): the managing organization's owners and admins choose, per client,
 * outside contacts who receive the client's weekly report — the same branded digest mail and PDF
 * the client's own owners and admins get — and switch sending on or off. The digest scheduler
 * (src/features/digests/schedule.ts) asks `clientReportAudience` whom to send to and tells
 * `recordClientReportResult` how it went. This feature owns `client_report_settings`.
 */
import { eq } from "drizzle-orm";
import type { OrgContext, ServiceContext } from "../../http/access";
import { NotFoundError, parseInput } from "../../http/errors";
import { auditOrg } from "../audit/service";
import { organizationInfo } from "../orgs/audience";
import { clientReportSchema, type ClientReportInput, type ClientReportResponse } from "./contract";
import { managingOrg } from "./service";

type Row = typeof import("../../db/schema").clientReportSettings.$inferSelect;
type Ctx = Pick<ServiceContext, "store">;

const list = (json: string | null): unknown[] => {
  try {
    const v = json ? JSON.parse(json) : [];
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
};

async function rowOf(ctx: Ctx, clientId: string): Promise<Row | null> {
  const t = ctx.store.t.clientReportSettings;
  const [row] = await ctx.store.db.select().from(t).where(eq(t.clientOrgId, clientId)).limit(1);
  return row ?? null;
}

function responseOf(row: Row | null): ClientReportResponse {
  return {
    contacts: list(row?.contacts ?? null).filter((c): c is string => typeof c === "string"),
    enabled: row?.enabled ?? false,
    lastSentAt: row?.lastSentAt?.toISOString() ?? null,
    lastFailures: list(row?.lastFailures ?? null).filter((f): f is { to: string; error: string } => !!f && typeof (f as { to?: unknown }).to === "string"),
    lastFailedAt: row?.lastFailedAt?.toISOString() ?? null,
  };
}

/** The client, when it is a client of the actor's managing organization (403 for others' roles, 404 for anyone else's client). */
async function managedClient(ctx: OrgContext, clientId: string): Promise<{ id: string; name: string }> {
  const parent = await managingOrg(ctx);
  const client = await organizationInfo(ctx, clientId);
  if (!client || client.parentId !== parent.id) throw new NotFoundError("No such client organization.");
  return { id: client.id, name: client.name };
}

/** GET /api/portfolio/clients/:id/report */
export async function getClientReport(ctx: OrgContext, clientId: string): Promise<ClientReportResponse> {
  const client = await managedClient(ctx, clientId);
  return responseOf(await rowOf(ctx, client.id));
}

/** PUT /api/portfolio/clients/:id/report: the contacts and the switch, audited in the managing organization. A refused input changes nothing. */
export async function saveClientReport(ctx: OrgContext, clientId: string, input: ClientReportInput | unknown): Promise<ClientReportResponse> {
  const client = await managedClient(ctx, clientId);
  const v = parseInput(clientReportSchema, input);
  const before = responseOf(await rowOf(ctx, client.id));
  const t = ctx.store.t.clientReportSettings;
  const values = { contacts: JSON.stringify(v.contacts), enabled: v.enabled, updatedAt: ctx.now() };
  await ctx.store.write(async (tx) => {
    await tx.insert(t).values({ clientOrgId: client.id, ...values }).onConflictDoUpdate({ target: t.clientOrgId, set: values });
    const added = v.contacts.filter((c) => !before.contacts.includes(c));
    const removed = before.contacts.filter((c) => !v.contacts.includes(c));
    if (added.length || removed.length || before.enabled !== v.enabled) {
      await auditOrg(ctx, "client.report_changed", { target: client.name, data: { clientId: client.id, enabled: v.enabled, added, removed } });
    }
  });
  return responseOf(await rowOf(ctx, client.id));
}

/** Whom a client's weekly report goes to outside the client: its contacts while sending is on, else none. */
export async function clientReportAudience(ctx: Ctx, clientId: string): Promise<string[]> {
  const row = await rowOf(ctx, clientId);
  return row?.enabled ? responseOf(row).contacts : [];
}

/** After a weekly send to a client's contacts: when it reached someone, and who the relay refused (kept, shown in the dialog). */
export async function recordClientReportResult(ctx: Ctx, clientId: string, at: Date, result: { sent: string[]; failed: { to: string; error: string }[] }): Promise<void> {
  if (!result.sent.length && !result.failed.length) return;
  const t = ctx.store.t.clientReportSettings;
  const set: Partial<Row> = {};
  if (result.sent.length) set.lastSentAt = at;
  // the refused addresses of this send (an empty list clears the previous send's)
  set.lastFailures = result.failed.length ? JSON.stringify(result.failed.map((f) => ({ to: f.to, error: f.error.slice(0, 300) }))) : null;
  if (result.failed.length) set.lastFailedAt = at;
  await ctx.store.write(async (tx) => {
    await tx.update(t).set(set).where(eq(t.clientOrgId, clientId));
  });
}
