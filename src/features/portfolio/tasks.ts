/**
 * Every client's open tasks at once, counted: each input that decides which tasks there are
 * (the domains with their last DNS check's DMARC record, the window's failing mail, the sender
 * marks) read for all clients with one statement per input over the client ids, then the pure
 * rules (`countTasks`, the rules of `deriveTasks` without the text) run per client in memory —
 * the same tasks the client's own dashboard derives one organization at a time
 * (src/features/dashboard/service.ts `listTasks`).
 */
import type { ServiceContext } from "../../http/access";
import type { SenderMark } from "../../lib/senders";
import { failingSenders, markedIpsOf, withMarks } from "../../lib/task-inputs";
import { countTasks, REPORT_WINDOW_DAYS, type DomainState, type FailingSender } from "../../lib/tasks";
import { domainsWithRecordOfOrgs } from "../domains/across-orgs";
import { failingMailOfOrgs, senderMarksOfOrgs } from "../reports/across-orgs";
import { byOrg, groupBy, overClients } from "./over-clients";

const DAY_MS = 86_400_000;

type RecordRows = Awaited<ReturnType<typeof domainsWithRecordOfOrgs>>;
type MarkRows = Awaited<ReturnType<typeof senderMarksOfOrgs>>;
type FailingRows = Awaited<ReturnType<typeof failingMailOfOrgs>>;

/** The window the tasks read the failing mail and traffic of: the UTC days after `windowStart`'s day up to `now`'s. */
export function taskWindow(now: Date): { windowStart: Date; now: Date } {
  return { windowStart: new Date(now.getTime() - REPORT_WINDOW_DAYS * DAY_MS), now };
}

/**
 * How many open tasks each client has, by client id: what the portfolio shows. The rules of
 * `deriveTasks` without their text (countTasks), so without the inputs only the text reads (the
 * window's traffic per domain, the report destinations, the dates of the DNS check history):
 * each domain with its last check's DMARC record is enough. The portfolio passes the rows it
 * reads for its other figures, or the reads still under way.
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
  for (const client of clientInputs(ids, now, { domains, marks, failing })) out.set(client.id, countTasks({ now, domains: client.domains, failing: client.failing }));
  return out;
}

/**
 * Per client, the inputs of the task rules its rows give: its domains created by `now` (a domain
 * row with its last check's record is the domain as it stands; the dates of its statuses only
 * date the tasks) and the window's failing senders with its marks.
 */
function* clientInputs(ids: string[], now: Date, read: { domains: RecordRows; marks: MarkRows; failing: FailingRows }): Generator<{ id: string; domains: DomainState[]; failing: FailingSender[] }> {
  const domainsOf = groupBy(read.domains, byOrg);
  const failingOf = groupBy(read.failing, byOrg);
  const marksOf = groupBy(read.marks, byOrg);
  for (const id of ids) {
    const domains = (domainsOf.get(id) ?? []).filter((d) => d.createdAt.getTime() <= now.getTime());
    const marks = new Map<string, SenderMark>((marksOf.get(id) ?? []).map((m) => [m.key, m.verdict]));
    const rows = failingOf.get(id) ?? [];
    const names = new Map(rows.map((r) => [r.ip, r.name]));
    yield { id, domains, failing: withMarks(failingSenders(rows, (ip) => names.get(ip), markedIpsOf(marks)), marks) };
  }
}
