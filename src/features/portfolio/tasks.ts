/**
 * Every client's open tasks at once, counted: each input that decides which tasks there are
 * (the domains with their last DNS check's DMARC record, the window's failing mail, the sender
 * marks) read for all clients with one statement per input over the client ids (by the
 * portfolio, which reads them for its other figures too), grouped per client once
 * (`rowsPerClient`), then the pure rules (`countTasks`, the rules of `deriveTasks` without the text) run per client in
 * memory — the same tasks the client's own dashboard derives one organization at a time
 * (src/features/dashboard/service.ts `listTasks`).
 */
import type { SenderMark } from "../../lib/senders";
import { failingSenders, markedIpsOf, withMarks, type SourceName } from "../../lib/task-inputs";
import { countTasks, REPORT_WINDOW_DAYS, type DomainState } from "../../lib/tasks";
import type { domainsWithRecordOfOrgs } from "../domains/across-orgs";
import type { failingMailOfOrgs, senderMarksOfOrgs } from "../reports/across-orgs";

const DAY_MS = 86_400_000;

type RecordRows = Awaited<ReturnType<typeof domainsWithRecordOfOrgs>>;
type MarkRows = Awaited<ReturnType<typeof senderMarksOfOrgs>>;
type FailingRows = Awaited<ReturnType<typeof failingMailOfOrgs>>;

/** One client's rows of the task inputs, in the order they came. */
export interface ClientRows {
  domains: RecordRows;
  failing: FailingRows;
  marks: MarkRows;
}

/** The window the tasks read the failing mail and traffic of: the UTC days after `windowStart`'s day up to `now`'s. */
export function taskWindow(now: Date): { windowStart: Date; now: Date } {
  return { windowStart: new Date(now.getTime() - REPORT_WINDOW_DAYS * DAY_MS), now };
}

/** A client without rows (no domains, no failing mail, no marks); never changed. */
const NO_ROWS: ClientRows = Object.freeze({ domains: [], failing: [], marks: [] }) as unknown as ClientRows;

/** The rows of each client: the task inputs grouped by organization once, for every reader of the portfolio. */
export function rowsPerClient(read: { domains: RecordRows; failing: FailingRows; marks: MarkRows }): Map<string, ClientRows> {
  const out = new Map<string, ClientRows>();
  const of = (orgId: string) => {
    let rows = out.get(orgId);
    if (!rows) out.set(orgId, (rows = { domains: [], failing: [], marks: [] }));
    return rows;
  };
  // a statement's rows of one organization mostly come together: the last one's group is at hand
  let lastOrg = "";
  let last: ClientRows | undefined;
  for (const r of read.domains) {
    if (r.orgId !== lastOrg || !last) last = of((lastOrg = r.orgId));
    last.domains.push(r);
  }
  last = undefined;
  for (const r of read.failing) {
    if (r.orgId !== lastOrg || !last) last = of((lastOrg = r.orgId));
    last.failing.push(r);
  }
  last = undefined;
  for (const r of read.marks) {
    if (r.orgId !== lastOrg || !last) last = of((lastOrg = r.orgId));
    last.marks.push(r);
  }
  return out;
}

/** The rows of `id` in `grouped`, or none. */
export const rowsOf = (grouped: ReadonlyMap<string, ClientRows>, id: string): ClientRows => grouped.get(id) ?? NO_ROWS;

const NO_MARKS: ReadonlyMap<string, SenderMark> = new Map();
const unnamed = (): SourceName | undefined => undefined;

/**
 * How many open tasks a client has, from its rows (`rowsPerClient`): what the portfolio shows.
 * The rules of `deriveTasks` without their text (countTasks), so without the inputs only the text
 * reads (the window's traffic per domain, the report destinations, the dates of the DNS check
 * history): each domain with its last check's DMARC record is enough. Its domains created by
 * `now` (a domain row with its last check's record is the domain as it stands; the dates of its
 * statuses only date the tasks) and the window's failing senders with its marks.
 */
export function taskCountOf(rows: ClientRows, now: Date): number {
  const at = now.getTime();
  let domains: DomainState[] = rows.domains;
  for (const d of rows.domains) {
    if (d.createdAt.getTime() > at) {
      domains = rows.domains.filter((x) => x.createdAt.getTime() <= at);
      break;
    }
  }
  let marks = NO_MARKS;
  if (rows.marks.length) {
    const byKey = new Map<string, SenderMark>();
    for (const m of rows.marks) byKey.set(m.key, m.verdict);
    marks = byKey;
  }
  // what source_names says of each address (the rows of one address all say the same)
  let names: Map<string, SourceName> | null = null;
  for (const r of rows.failing) if (r.name !== undefined) (names ??= new Map()).set(r.ip, r.name);
  const nameOf = names ? (ip: string) => names.get(ip) : unnamed;
  const senders = failingSenders(rows.failing, nameOf, marks.size ? markedIpsOf(marks) : []);
  // without marks every sender's mark is none, as withMarks would set it
  return countTasks({ now, domains, failing: marks.size ? withMarks(senders, marks) : senders });
}
