/**
 * Every client's open tasks at once: each input of `deriveTasks` (the domains and their DNS
 * check history, the window's failing mail and traffic, the sender marks, the rua and report
 * destination) read for all clients with one statement per input over the client ids, then
 * the pure rules run per client in memory — the same tasks the client's own dashboard derives
 * one organization at a time (src/features/dashboard/service.ts `listTasks`). The portfolio
 * counts them (`clientsTaskCounts`: the same rules without the text).
 */
import type { ServiceContext } from "../../http/access";
import type { SenderMark } from "../../lib/senders";
import { currentDomainState, failingSenders, markedIpsOf, ruaAddressOf, withMarks } from "../../lib/task-inputs";
import { countTasks, deriveTasks, REPORT_WINDOW_DAYS, type DomainState, type FailingSender, type Task } from "../../lib/tasks";
import { domainsOfOrgs, domainsWithRecordOfOrgs, statusHistoryOfOrgs } from "../domains/across-orgs";
import { reportDestinationsOfOrgs } from "../mailin/across-orgs";
import { failingMailOfOrgs, senderMarksOfOrgs, trafficByDomainOfOrgs } from "../reports/across-orgs";
import { byOrg, groupBy, overClients } from "./over-clients";

const DAY_MS = 86_400_000;

type DomainRows = Awaited<ReturnType<typeof domainsOfOrgs>>;
type RecordRows = Awaited<ReturnType<typeof domainsWithRecordOfOrgs>>;
type MarkRows = Awaited<ReturnType<typeof senderMarksOfOrgs>>;
type FailingRows = Awaited<ReturnType<typeof failingMailOfOrgs>>;

/** The window the tasks read the failing mail and traffic of: the UTC days after `windowStart`'s day up to `now`'s. */
export function taskWindow(now: Date): { windowStart: Date; now: Date } {
  return { windowStart: new Date(now.getTime() - REPORT_WINDOW_DAYS * DAY_MS), now };
}

/**
 * The open tasks of each client, by client id (a client that no longer exists is left out).
 * The portfolio passes the rows it reads for its other figures (the domains, the marks, the
 * window's failing mail read with `taskWindow(now)`), or the reads still under way; the
 * statements left start at once and run together with them.
 */
export async function clientsTasks(
  ctx: Pick<ServiceContext, "store" | "config" | "now">,
  ids: string[],
  read: { now?: Date; domains?: DomainRows | Promise<DomainRows>; marks?: MarkRows | Promise<MarkRows>; failing?: FailingRows | Promise<FailingRows> } = {},
): Promise<Map<string, Task[]>> {
  const { windowStart, now } = taskWindow(read.now ?? ctx.now());
  const [domainRows, markRows, failing, history, traffic, destinations] = await Promise.all([
    read.domains ?? overClients(ids, (chunk) => domainsOfOrgs(ctx, chunk)),
    read.marks ?? overClients(ids, (chunk) => senderMarksOfOrgs(ctx, chunk)),
    read.failing ?? overClients(ids, (chunk) => failingMailOfOrgs(ctx, chunk, windowStart, now)),
    overClients(ids, (chunk) => statusHistoryOfOrgs(ctx, chunk, now)),
    overClients(ids, (chunk) => trafficByDomainOfOrgs(ctx, chunk, windowStart, now)),
    overClients(ids, async (chunk) => [...(await reportDestinationsOfOrgs(ctx, chunk))]).then((entries) => new Map(entries)),
  ]);

  return tasksOfClients(ids, now, { domains: domainRows, marks: markRows, failing, history, traffic, destinations });
}

type HistoryRows = Awaited<ReturnType<typeof statusHistoryOfOrgs>>;
type TrafficRows = Awaited<ReturnType<typeof trafficByDomainOfOrgs>>;
type Destinations = Awaited<ReturnType<typeof reportDestinationsOfOrgs>>;

/** The pure half of `clientsTasks`: each client's tasks from the rows read for all of them. */
export function tasksOfClients(
  ids: string[],
  now: Date,
  read: { domains: DomainRows; marks: MarkRows; failing: FailingRows; history: HistoryRows; traffic: TrafficRows; destinations: Destinations },
): Map<string, Task[]> {
  const trafficOf = groupBy(read.traffic, byOrg);
  const historyOf = groupBy(read.history, (row) => row.domainId);
  const out = new Map<string, Task[]>();
  for (const { id, domains, failing } of clientInputs(ids, now, read, (d) => currentDomainState(d, historyOf.get(d.id) ?? []))) {
    const dest = read.destinations.get(id);
    if (!dest) continue;
    out.set(id, deriveTasks({ now, domains, failing, traffic: trafficOf.get(id) ?? [], ruaAddress: ruaAddressOf(dest.dmarcRua, dest.address), destination: dest.destination }));
  }
  return out;
}

/**
 * How many open tasks each client has, by client id: what the portfolio shows. The same rules
 * as `clientsTasks` (countTasks), without their text, so without the inputs only the text reads
 * (the window's traffic per domain, the report destinations, the dates of the DNS check
 * history): each domain with its last check's DMARC record is enough.
 */
export async function clientsTaskCounts(
  ctx: Pick<ServiceContext, "store" | "now">,
  ids: string[],
  read: { now?: Date; domains?: RecordRows | Promise<RecordRows>; marks?: MarkRows | Promise<MarkRows>; failing?: FailingRows | Promise<FailingRows> } = {},
): Promise<Map<string, number>> {
  const { windowStart, now } = taskWindow(read.now ?? ctx.now());
  const [domains, marks, failing] = await Promise.all([
    read.domains ?? overClients(ids, (chunk) => domainsWithRecordOfOrgs(ctx, chunk, now)),
    read.marks ?? overClients(ids, (chunk) => senderMarksOfOrgs(ctx, chunk)),
    read.failing ?? overClients(ids, (chunk) => failingMailOfOrgs(ctx, chunk, windowStart, now)),
  ]);
  const out = new Map<string, number>();
  // a domain row with its last check's record is the domain as it stands (the dates of its statuses only date the tasks)
  for (const client of clientInputs(ids, now, { domains, marks, failing }, (d) => d)) out.set(client.id, countTasks({ now, domains: client.domains, failing: client.failing }));
  return out;
}

/**
 * Per client, the inputs of the task rules its rows give: its domains as they stand at `now`
 * (`stateOf` each domain created by then) and the window's failing senders with its marks.
 */
function* clientInputs<D extends { orgId: string; createdAt: Date }>(
  ids: string[],
  now: Date,
  read: { domains: D[]; marks: MarkRows; failing: FailingRows },
  stateOf: (domain: D) => DomainState,
): Generator<{ id: string; domains: DomainState[]; failing: FailingSender[] }> {
  const domainsOf = groupBy(read.domains, byOrg);
  const failingOf = groupBy(read.failing, byOrg);
  const marksOf = groupBy(read.marks, byOrg);
  for (const id of ids) {
    const domains = (domainsOf.get(id) ?? []).filter((d) => d.createdAt.getTime() <= now.getTime()).map(stateOf);
    const marks = new Map<string, SenderMark>((marksOf.get(id) ?? []).map((m) => [m.key, m.verdict]));
    const rows = failingOf.get(id) ?? [];
    const names = new Map(rows.map((r) => [r.ip, r.name]));
    yield { id, domains, failing: withMarks(failingSenders(rows, (ip) => names.get(ip), markedIpsOf(marks)), marks) };
  }
}
