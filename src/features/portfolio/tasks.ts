/**
 * Every client's open tasks at once, counted: each input that decides which tasks there are
 * (the domains with their last DNS check's DMARC record, the window's failing mail, the sender
 * marks) read for all clients with one statement per input over the client ids (by the
 * portfolio, which reads them for its other figures too), grouped per client once
 * (`rowsPerClient`), then the pure rules (`countTasksPerDomain`, the rules of `deriveTasks`
 * without the text) run in memory — the same tasks the client's own dashboard derives one organization at a time
 * (src/features/dashboard/service.ts `listTasks`).
 */
import type { SenderMark } from "../../lib/senders";
import { failingSenders, markedIpsOf, withMarks, type SourceName } from "../../lib/task-inputs";
import { countTasksPerDomain, REPORT_WINDOW_DAYS, type DomainState, type FailingSender } from "../../lib/tasks";
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
 * How many open tasks each client of `ids` has, from its rows (`rowsPerClient`): what the
 * portfolio shows. The rules of `deriveTasks` without their text (`countTasksPerDomain`), so
 * without the inputs only the text reads (the window's traffic per domain, the report
 * destinations, the dates of the DNS check history): each domain with its last check's DMARC
 * record is enough. A client's domains created by `now` count (a domain row with its last
 * check's record is the domain as it stands; the dates of its statuses only date the tasks),
 * with the window's failing senders of each domain and the client's marks on them.
 *
 * A domain's tasks depend on that domain and its failing senders only, so every client's
 * domains are counted in one pass and summed per client; the failing mail of the clients
 * without marks and without named addresses is grouped into senders in one pass too (each
 * domain's addresses grouped alike, whichever client it is), the others' client by client
 * with their names and marks.
 */
export function taskCounts(grouped: ReadonlyMap<string, ClientRows>, ids: readonly string[], now: Date): Map<string, number> {
  const at = now.getTime();
  const domains: DomainState[] = [];
  /** where each client's domains end in `domains` */
  const ends: number[] = [];
  const failing: FailingSender[] = [];
  const plain: FailingRows = [];
  for (const id of ids) {
    const rows = grouped.get(id);
    if (rows) {
      for (const d of rows.domains) if (d.createdAt.getTime() <= at) domains.push(d);
      if (rows.failing.length) {
        // what source_names says of each address (the rows of one address all say the same)
        let names: Map<string, SourceName> | null = null;
        for (const r of rows.failing) if (r.name !== undefined) (names ??= new Map()).set(r.ip, r.name);
        if (!names && !rows.marks.length) for (const r of rows.failing) plain.push(r);
        else {
          let marks = NO_MARKS;
          if (rows.marks.length) {
            const byKey = new Map<string, SenderMark>();
            for (const m of rows.marks) byKey.set(m.key, m.verdict);
            marks = byKey;
          }
          const nameOf = names ? (ip: string) => names.get(ip) : unnamed;
          const senders = failingSenders(rows.failing, nameOf, marks.size ? markedIpsOf(marks) : []);
          // without marks every sender's mark is none, as withMarks would set it
          for (const f of marks.size ? withMarks(senders, marks) : senders) failing.push(f);
        }
      }
    }
    ends.push(domains.length);
  }
  if (plain.length) for (const f of failingSenders(plain, unnamed, [])) failing.push(f);
  const perDomain = countTasksPerDomain({ now, domains, failing });
  const out = new Map<string, number>();
  let i = 0;
  for (let c = 0; c < ids.length; c++) {
    let count = 0;
    for (const end = ends[c]!; i < end; i++) count += perDomain[i]!;
    out.set(ids[c]!, count);
  }
  return out;
}
