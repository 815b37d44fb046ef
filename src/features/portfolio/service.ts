/**
 * The MSP portfolio: the managing organization's clients side by side, each figure read for
 * all clients at once by the set-based twin of the verb the client's own dashboard answers
 * with (domains, reports roll-ups, tasks, alert events), so each is what the client sees. And
 * bulk onboarding: clients and their domains from a CSV, row by row.
 *
 * Only owners and admins of a top-level organization reach these (route permission
 * clients:manage); from inside a client organization, its own owners included, they are 403.
 */
import type { OrgContext } from "../../http/access";
import { ForbiddenError, PayloadTooLargeError, ServiceError } from "../../http/errors";
import { clientNameKey, parseClientCsv } from "../../lib/client-csv";
import { byCodeUnit } from "../../lib/order";
import { roleAllows } from "../../lib/permissions";
import { senderKeyOfRow } from "../../lib/senders";
import { auditActor, recordAudit } from "../audit/service";
import { assertCanAddDomain } from "../billing/limits";
import { eventCountsSince } from "../alerts/across-orgs";
import { domainsWithRecordOfOrgs } from "../domains/across-orgs";
import { addDomain, domainNamesOf } from "../domains/service";
import { clientsOf, organizationInfo } from "../orgs/audience";
import { createClient } from "../orgs/service";
import { failingMailOfOrgs, senderMarksOfOrgs, trafficOfOrgs } from "../reports/across-orgs";
import { overClients } from "./over-clients";
import { rowsOf, rowsPerClient, taskCounts, taskWindow, type ClientRows } from "./tasks";
import { IMPORT_MAX_ROWS, PORTFOLIO_STATUSES, type ImportResponse, type ImportRow, type PortfolioClient, type PortfolioResponse, type PortfolioStatus } from "./contract";

const DAY_MS = 86_400_000;
/** failing sources counted per client (far more than a screen shows) */
const MAX_SOURCES = 10_000;

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

/** A domain's overall status's place in PORTFOLIO_STATUSES (worst first); a status not listed counts as pending. */
function statusRank(status: string): number {
  const i = PORTFOLIO_STATUSES.indexOf(status as PortfolioStatus);
  return i < 0 ? PENDING : i;
}
const PENDING = PORTFOLIO_STATUSES.indexOf("pending");

/**
 * How many source addresses of a client's failing mail of the window its threat list counts:
 * the MAX_SOURCES most failing (summed over the window's days and domains; ties by address, as
 * failingSources ranks them), less those of a sender the client approved.
 */
function failingSourceCount(rows: ClientRows["failing"], approved: ReadonlySet<string> | null): number {
  if (!rows.length) return 0;
  // each address once, with its first row (its name)
  const first = new Map<string, ClientRows["failing"][number]>();
  for (const r of rows) if (!first.has(r.ip)) first.set(r.ip, r);
  let sources: Iterable<ClientRows["failing"][number]> = first.values();
  if (first.size > MAX_SOURCES) {
    // more addresses than counted: the most failing ones
    const sums = new Map<string, number>();
    for (const r of rows) sums.set(r.ip, (sums.get(r.ip) ?? 0) + r.failing);
    sources = [...first.values()].sort((a, b) => sums.get(b.ip)! - sums.get(a.ip)! || byCodeUnit(a.ip, b.ip)).slice(0, MAX_SOURCES);
  } else if (!approved) return first.size;
  if (!approved) return MAX_SOURCES;
  let count = 0;
  for (const s of sources) if (!approved.has(senderKeyOfRow({ service: s.name?.service ?? null, baseDomain: s.name?.baseDomain ?? null, sourceIp: s.ip }))) count++;
  return count;
}

/**
 * The figures of every client at once, one statement per figure over all client ids (grouped
 * by org_id), each the set-based form of the verb the client's own screen answers with:
 * listDomains (domains), messagesProcessedBetween (aggregate_reports), failingSources (the
 * failing rows of the daily sender roll-up the tasks read too, ranked the threat list's way:
 * the same top MAX_SOURCES per client), senderMarks, and the alert feed's count (org_events
 * without test events). Open tasks are the client's tasks counted by the same rules, from the
 * inputs that decide which tasks there are, read the same way (./tasks.ts taskCounts). The
 * domains, failing mail and marks are grouped per client once, for the figures and the tasks.
 */
async function clientsFigures(ctx: OrgContext, clients: { id: string; name: string }[], plan: string): Promise<PortfolioClient[]> {
  const ids = clients.map((c) => c.id);
  const now = ctx.now();
  const weekAgo = new Date(now.getTime() - 7 * DAY_MS);
  const monthAgo = new Date(now.getTime() - 30 * DAY_MS);
  // the feed counts an event from `weekAgo` on; both stores keep whole seconds (a bound is rounded down when written)
  const alertsFrom = new Date(Math.ceil(weekAgo.getTime() / 1000) * 1000);
  // the tasks' window of failing mail is the 7 UTC days up to today, the failing sources' too
  const window = taskWindow(now);
  // every read starts at once (each on its own pooled connection on PostgreSQL); the task
  // inputs are grouped and the tasks counted as soon as they are in, while the others are read
  const perClient = Promise.all([
    overClients(ids, (chunk) => domainsWithRecordOfOrgs(ctx, chunk, now)),
    overClients(ids, (chunk) => failingMailOfOrgs(ctx, chunk, window.windowStart, window.now)),
    overClients(ids, (chunk) => senderMarksOfOrgs(ctx, chunk)),
  ]).then(([domains, failing, marks]) => {
    const grouped = rowsPerClient({ domains, failing, marks });
    return { grouped, openTasks: taskCounts(grouped, ids, now) };
  });
  const [{ grouped, openTasks }, traffic, alerts] = await Promise.all([
    perClient,
    overClients(ids, (chunk) => trafficOfOrgs(ctx, chunk, { weekAgo, monthAgo, now })),
    overClients(ids, (chunk) => eventCountsSince(ctx, chunk, alertsFrom)),
  ]);

  const trafficOf = new Map(traffic.map((r) => [r.orgId, r]));
  const alertsOf = new Map(alerts.map((r) => [r.orgId, Number(r.n)]));

  const result: PortfolioClient[] = [];
  for (const client of clients) {
    const rows = rowsOf(grouped, client.id);
    const domains = rows.domains;
    const policyMix = { reject: 0, quarantine: 0, none: 0, missing: 0 };
    let worst = -1;
    let lastReport: Date | null = null;
    for (const d of domains) {
      const rank = statusRank(d.overallStatus);
      if (worst < 0 || rank < worst) worst = rank;
      if (d.lastReportAt && (!lastReport || d.lastReportAt.getTime() > lastReport.getTime())) lastReport = d.lastReportAt;
      if (d.dmarcPolicy === null) continue; // not checked yet
      const p = d.dmarcPolicy === "reject" || d.dmarcPolicy === "quarantine" || d.dmarcPolicy === "none" ? d.dmarcPolicy : "missing";
      policyMix[p]++;
    }
    let approved: Set<string> | null = null;
    for (const m of rows.marks) if (m.verdict === "approved") (approved ??= new Set()).add(m.key);
    const t = trafficOf.get(client.id);
    const week = t?.week ?? { messages: 0, passing: 0 };
    const month = t?.month ?? { messages: 0, passing: 0 };
    result.push({
      id: client.id,
      name: client.name,
      plan,
      domains: domains.length,
      worstStatus: worst < 0 ? null : PORTFOLIO_STATUSES[worst]!,
      passRate7d: passRate(week),
      passRate30d: passRate(month),
      messages7d: week.messages,
      // as the threat list: a source of a sender the client approved is not counted
      failingSources7d: failingSourceCount(rows.failing, approved),
      openTasks: openTasks.get(client.id) ?? 0,
      alerts7d: alertsOf.get(client.id) ?? 0,
      lastReportAt: lastReport?.toISOString() ?? null,
      policyMix,
    });
  }
  return result;
}

/** GET /api/portfolio (and the MSP's portfolio digest): every client of the managing organization, by name. */
export async function portfolio(ctx: OrgContext): Promise<PortfolioResponse> {
  // the clients are read together with the check (the actor's own organization's, answered only once it passes)
  const [parent, clients] = await Promise.all([managingOrg(ctx), clientsOf(ctx, ctx.actor.orgId)]);
  // a managing organization is its own billing organization (billingOrg's answer for it): its plan is every client's
  return { clients: await clientsFigures(ctx, clients, parent.plan) };
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
