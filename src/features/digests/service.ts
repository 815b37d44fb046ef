/**
 * The weekly digest of an organisation, built from the features that own the figures: its
 * domains and their status changes (domains), messages and pass rate against the week before
 * and the sources failing most (reports' daily roll-ups — never the raw records), the tasks
 * still open (dashboard). An MSP parent whose settings say so gets one digest covering its
 * client organisations too, with a row per client. The words and tables are src/lib/alerts/digest.ts.
 */
import type { OrgContext, ServiceContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import { mailBaseFor } from "../branding/service";
import type { DigestClient, DigestDomain, DigestModel } from "../../lib/alerts/digest";
import type { Task } from "../../lib/tasks";
import { listTasks } from "../dashboard/service";
import { domainStatusesOf, statusChangesBetween } from "../domains/history";
import { reportAddress } from "../mailin/service";
import { clientsOf, organizationInfo, type OrganizationInfo } from "../orgs/audience";
import { domainTotalsBetween, topFailingSourcesBetween } from "../reports/weekly";
import { digestSchedulesOf } from "../settings/service";

const DAY_MS = 86_400_000;
export const DIGEST_DAYS = 7;
/** Sources listed at most (the digest's tables show fewer; the rest is counted). */
const TOP_SOURCES = 25;

export interface DigestWeek {
  start: Date;
  end: Date;
}

/** The week a digest sent at `now` covers: the 7 whole UTC days before the day of `now`. */
export function digestWeek(now: Date): DigestWeek {
  const end = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  return { start: new Date(end.getTime() - DIGEST_DAYS * DAY_MS), end };
}

/** ISO 8601 week of a date, e.g. "2026-W19" (weeks start on Monday; week 1 holds the first Thursday). */
export function isoWeek(date: Date): string {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const weekday = day.getUTCDay() || 7;
  day.setUTCDate(day.getUTCDate() + 4 - weekday); // the Thursday of this week decides the year
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / DAY_MS + 1) / 7);
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, "0")}`;
}

/**
 * A context acting in `orgId` on the server's own behalf (the scheduler, the CLI): for reading
 * the verbs that take an organisation context. Never handed to anything that writes.
 */
export function readerContext(deps: ServiceContext, orgId: string): OrgContext {
  return {
    ...deps,
    actor: {
      orgId,
      role: "owner",
      user: {
        sessionId: "",
        userId: "",
        name: "dmarcwarden",
        email: "",
        hasPassword: false,
        currentOrgId: orgId,
      },
    },
  };
}

async function openTasksOf(deps: ServiceContext, orgId: string): Promise<Task[]> {
  const ctx = readerContext(deps, orgId);
  return listTasks(ctx, (await reportAddress(ctx)).address);
}

const day = (d: Date) => Math.floor(d.getTime() / DAY_MS);

/** The link a digest points at: the dashboard, on the MSP's verified hostname or else absolute when the server knows its public address. */
async function dashboardLink(deps: ServiceContext, orgId: string): Promise<string> {
  return `${await mailBaseFor(deps, orgId)}/app/dashboard`;
}

export interface BuildOptions {
  /** the week covered (default: the week before `deps.now()`) */
  week?: DigestWeek;
  /** include the client organisations (default: the organisation's digest setting; only an MSP parent has clients) */
  includeClients?: boolean;
}

/** The digest of one organisation for one week. */
export async function buildDigest(deps: ServiceContext, orgId: string, options: BuildOptions = {}): Promise<DigestModel> {
  const org = await organizationInfo(deps, orgId);
  if (!org) throw new NotFoundError("This organization no longer exists.");
  const week = options.week ?? digestWeek(deps.now());
  const includeClients = options.includeClients ?? (await digestSchedulesOf(deps, [orgId])).get(orgId)!.digestIncludeClients;
  const clients: OrganizationInfo[] = includeClients && !org.parentId ? await clientsOf(deps, orgId) : [];
  const orgs = [org, ...clients];
  const orgIds = orgs.map((o) => o.id);
  const nameOf = new Map(orgs.map((o) => [o.id, o.name]));
  // a client's rows say whose they are; the organisation's own rows stay plain
  const label = (domain: string, owner: string) => (owner === orgId ? domain : `${domain} (${nameOf.get(owner)})`);

  const from = day(week.start);
  const to = day(week.end);
  const [domains, thisWeek, weekBefore, changes, sources] = await Promise.all([
    domainStatusesOf(deps, orgIds),
    domainTotalsBetween(deps, orgIds, from, to),
    domainTotalsBetween(deps, orgIds, from - DIGEST_DAYS, from),
    statusChangesBetween(deps, orgIds, week.start, week.end),
    topFailingSourcesBetween(deps, orgIds, from, to, TOP_SOURCES),
  ]);
  const tasksByOrg = new Map<string, Task[]>();
  for (const o of orgs) tasksByOrg.set(o.id, await openTasksOf(deps, o.id));

  const now = new Map(thisWeek.map((t) => [t.domainId, t]));
  const before = new Map(weekBefore.map((t) => [t.domainId, t]));
  const domainById = new Map(domains.map((d) => [d.id, d]));
  const rows: (DigestDomain & { orgId: string })[] = domains.map((d) => ({
    orgId: d.orgId,
    name: label(d.name, d.orgId),
    status: d.status,
    messages: now.get(d.id)?.messages ?? 0,
    passed: now.get(d.id)?.passed ?? 0,
    previousMessages: before.get(d.id)?.messages ?? 0,
    previousPassed: before.get(d.id)?.passed ?? 0,
  }));

  const model: DigestModel = {
    organization: { name: org.name },
    period: { start: week.start, end: week.end },
    domains: rows.map(({ orgId: _owner, ...row }) => row),
    statusChanges: changes.flatMap((c) => {
      const d = domainById.get(c.domainId);
      return d
        ? [
            {
              domain: label(d.name, d.orgId),
              at: c.at,
              before: c.before,
              after: c.after,
            },
          ]
        : [];
    }),
    topFailingSources: sources.flatMap((s) => {
      const d = domainById.get(s.domainId);
      return d
        ? [
            {
              sourceIp: s.sourceIp,
              sourceName: null,
              domain: label(d.name, d.orgId),
              failedMessages: s.failed,
            },
          ]
        : [];
    }),
    openTasks: orgs.flatMap((o) =>
      (tasksByOrg.get(o.id) ?? []).map((t) => ({
        title: t.title,
        priority: t.priority,
        domain: label(t.domain, o.id),
      })),
    ),
    link: await dashboardLink(deps, org.id),
  };
  if (includeClients && !org.parentId) {
    model.clients = clients.map((c): DigestClient => {
      const own = rows.filter((r) => r.orgId === c.id);
      const sum = (pick: (r: DigestDomain) => number) => own.reduce((total, r) => total + pick(r), 0);
      return {
        name: c.name,
        domains: own.length,
        messages: sum((r) => r.messages),
        passed: sum((r) => r.passed),
        previousMessages: sum((r) => r.previousMessages),
        previousPassed: sum((r) => r.previousPassed),
        openTasks: tasksByOrg.get(c.id)?.length ?? 0,
      };
    });
  }
  return model;
}
