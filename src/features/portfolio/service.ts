/**
 * The MSP portfolio: the managing organization's clients side by side, each figure taken from
 * the same verbs the client's own dashboard answers with (domains, reports roll-ups, tasks,
 * alert events), run for the client as the MSP's owners and admins act in it. And bulk
 * onboarding: clients and their domains from a CSV, row by row.
 *
 * Only owners and admins of a top-level organization reach these (route permission
 * clients:manage); from inside a client organization, its own owners included, they are 403.
 */
import type { OrgContext } from "../../http/access";
import { ForbiddenError, PayloadTooLargeError, ServiceError } from "../../http/errors";
import { clientNameKey, parseClientCsv } from "../../lib/client-csv";
import { roleAllows } from "../../lib/permissions";
import { senderKeyOfRow } from "../../lib/senders";
import { listEvents } from "../alerts/feed";
import { auditActor, recordAudit } from "../audit/service";
import { assertCanAddDomain, billingOrg } from "../billing/limits";
import { listTasks } from "../dashboard/service";
import { addDomain, domainNamesOf, listDomains } from "../domains/service";
import { reportAddress } from "../mailin/service";
import { clientsOf, organizationInfo } from "../orgs/audience";
import { createClient } from "../orgs/service";
import { utcDay } from "../reports/rollups";
import { senderMarks } from "../reports/sender-marks";
import { failingSources, messagesProcessedBetween } from "../reports/stats";
import { IMPORT_MAX_ROWS, PORTFOLIO_STATUSES, type ImportResponse, type ImportRow, type PortfolioClient, type PortfolioResponse, type PortfolioStatus } from "./contract";

const DAY_MS = 86_400_000;
/** failing sources counted per client (far more than a screen shows) */
const MAX_SOURCES = 10_000;
const EVENTS_PAGE = 200;

/**
 * 403 unless the actor is an owner or admin (clients:manage) of an organization that manages
 * clients (is not a client itself). The portfolio's route is a read (it stays open while the
 * organization is read-only), so the role is checked here.
 */
export async function managingOrg(ctx: OrgContext): Promise<{ id: string; plan: string }> {
  if (!roleAllows(ctx.actor.role, "clients:manage")) throw new ForbiddenError("Only owners and admins of the managing organization see its clients.");
  const org = await organizationInfo(ctx, ctx.actor.orgId);
  if (!org) throw new ForbiddenError("This organization no longer exists.");
  if (org.parentId) throw new ForbiddenError("The portfolio belongs to the managing organization. Switch to it to see every client.");
  return { id: org.id, plan: org.plan };
}

/** The context of acting in one client organization with the MSP actor's own role. */
export function inClient(ctx: OrgContext, clientId: string): OrgContext {
  return { ...ctx, actor: { ...ctx.actor, orgId: clientId } };
}

/** Pass rate the dashboard's way: percent with one decimal, null without messages. */
const passRate = (t: { messages: number; passing: number }) => (t.messages ? Math.round((t.passing / t.messages) * 1000) / 10 : null);

function worstOf(statuses: string[]): PortfolioStatus | null {
  if (!statuses.length) return null;
  const rank = (s: string) => {
    const i = PORTFOLIO_STATUSES.indexOf(s as PortfolioStatus);
    return i < 0 ? PORTFOLIO_STATUSES.indexOf("pending") : i;
  };
  return PORTFOLIO_STATUSES[Math.min(...statuses.map(rank))]!;
}

/** Alert events of the client in the last 7 days, read newest first until an older one. */
async function alertsSince(ctx: OrgContext, since: Date): Promise<number> {
  let n = 0;
  for (let page = 1; ; page++) {
    const { events, total } = await listEvents(ctx, page, EVENTS_PAGE);
    for (const e of events) {
      if (new Date(e.occurredAt).getTime() < since.getTime()) return n;
      n++;
    }
    if (page * EVENTS_PAGE >= total || !events.length) return n;
  }
}

async function clientFigures(ctx: OrgContext, client: { id: string; name: string }, plan: string): Promise<PortfolioClient> {
  const c = inClient(ctx, client.id);
  const now = ctx.now();
  const today = utcDay(now);
  const [domains, week, month, sources, marks, tasks, alerts7d] = await Promise.all([
    listDomains(c),
    messagesProcessedBetween(c, client.id, new Date(now.getTime() - 7 * DAY_MS), now),
    messagesProcessedBetween(c, client.id, new Date(now.getTime() - 30 * DAY_MS), now),
    failingSources(c, client.id, { fromDay: today - 6, toDay: today, limit: MAX_SOURCES }),
    senderMarks(c),
    reportAddress(c).then((a) => listTasks(c, a.address)),
    alertsSince(c, new Date(now.getTime() - 7 * DAY_MS)),
  ]);
  const policyMix = { reject: 0, quarantine: 0, none: 0, missing: 0 };
  for (const d of domains) {
    if (d.dmarcPolicy === null) continue; // not checked yet
    const p = d.dmarcPolicy === "reject" || d.dmarcPolicy === "quarantine" || d.dmarcPolicy === "none" ? d.dmarcPolicy : "missing";
    policyMix[p]++;
  }
  const lastReport = domains.reduce<string | null>((max, d) => (d.lastReportAt && (!max || d.lastReportAt > max) ? d.lastReportAt : max), null);
  return {
    id: client.id,
    name: client.name,
    plan,
    domains: domains.length,
    worstStatus: worstOf(domains.map((d) => d.overallStatus)),
    passRate7d: passRate(week),
    passRate30d: passRate(month),
    messages7d: week.messages,
    // as the threat list: a source of a sender the client approved is not counted
    failingSources7d: sources.filter((s) => marks.get(senderKeyOfRow({ service: s.service, baseDomain: s.baseDomain, sourceIp: s.ip })) !== "approved").length,
    openTasks: tasks.length,
    alerts7d,
    lastReportAt: lastReport,
    policyMix,
  };
}

/** GET /api/portfolio: every client of the managing organization, by name. */
export async function portfolio(ctx: OrgContext): Promise<PortfolioResponse> {
  const parent = await managingOrg(ctx);
  const plan = (await billingOrg(ctx, parent.id))?.plan ?? parent.plan;
  const clients = await clientsOf(ctx, parent.id);
  const result: PortfolioClient[] = [];
  // one client at a time: a portfolio of hundreds should not open hundreds of queries at once
  for (const client of clients) result.push(await clientFigures(ctx, client, plan));
  return { clients: result };
}

/**
 * POST /api/portfolio/import: creates the clients a CSV names and adds their domains.
 *
 * Rows are independent: each row is one transaction (its client, when new, its domain and the
 * audit records), so a refused row changes nothing and the rows before and after it stand. A
 * dry run checks every row the same way (names, domains, what exists, the plan's domain
 * limit counting the rows before it) and changes nothing. Answers each row's outcome and the
 * ids of the domains added (the route queues their first DNS check).
 */
export async function importClients(ctx: OrgContext, csv: string, dryRun: boolean): Promise<ImportResponse & { addedDomainIds: string[] }> {
  const parent = await managingOrg(ctx);
  const parsed = parseClientCsv(csv);
  if (parsed.length > IMPORT_MAX_ROWS) throw new PayloadTooLargeError(`The CSV has ${parsed.length} rows; one import takes at most ${IMPORT_MAX_ROWS}. Split it into several imports.`);
  if (!parsed.length) throw new ServiceError(400, "validation_failed", "The CSV has no rows. Put one client name and domain per line, e.g. Acme Dental, acmedental.com", { csv: "The CSV has no rows" });

  const clientIds = new Map<string, { id: string | null; name: string }>();
  for (const c of await clientsOf(ctx, parent.id)) if (!clientIds.has(clientNameKey(c.name))) clientIds.set(clientNameKey(c.name), { id: c.id, name: c.name });
  const domainsOf = new Map<string, Set<string>>();
  const known = async (clientId: string | null, key: string) => {
    let set = domainsOf.get(key);
    if (!set) domainsOf.set(key, (set = new Set(clientId ? (await domainNamesOf(ctx, clientId)).map((d) => d.name) : [])));
    return set;
  };

  const rows: ImportRow[] = [];
  const addedDomainIds: string[] = [];
  let planned = 0;
  for (const row of parsed) {
    if (!row.ok) {
      rows.push({ line: row.line, clientName: row.clientName, domain: row.domain, status: "error", error: row.error });
      continue;
    }
    const key = clientNameKey(row.clientName);
    const client = clientIds.get(key) ?? null;
    const domains = await known(client?.id ?? null, key);
    const clientName = client?.name ?? row.clientName;
    if (domains.has(row.domain)) {
      rows.push({ line: row.line, clientName, domain: row.domain, status: "exists", clientCreated: false });
      continue;
    }
    try {
      if (dryRun) {
        await assertCanAddDomain(ctx, parent.id, planned + 1);
        planned++;
        if (!client) clientIds.set(key, { id: null, name: row.clientName });
      } else {
        const done = await ctx.store.write(async () => {
          const created = client?.id ? null : await createClient(ctx, row.clientName);
          const clientId = client?.id ?? created!.id;
          const domain = await addDomain(inClient(ctx, clientId), row.domain);
          const actor = auditActor(ctx.actor);
          if (created) await recordAudit(ctx, { orgId: parent.id, actor, action: "client.created", target: created.name, data: { clientId, source: "import" } });
          await recordAudit(ctx, { orgId: clientId, actor, action: "domain.added", target: domain.name, data: { source: "import" } });
          return { clientId, domainId: domain.id };
        });
        addedDomainIds.push(done.domainId);
        if (!client?.id) clientIds.set(key, { id: done.clientId, name: row.clientName });
      }
      domains.add(row.domain);
      rows.push({ line: row.line, clientName, domain: row.domain, status: "created", clientCreated: !client });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      rows.push({ line: row.line, clientName, domain: row.domain, status: "error", error: error.message });
    }
  }
  const summary = {
    created: rows.filter((r) => r.status === "created").length,
    exists: rows.filter((r) => r.status === "exists").length,
    errors: rows.filter((r) => r.status === "error").length,
    clientsCreated: rows.filter((r) => r.clientCreated).length,
  };
  return { dryRun, rows, summary, addedDomainIds };
}
