/**
 * Group commit for bulk ingest (the CLI `ingest` command and bench:ingest): several parsed files
 * are written in ONE store transaction. A COMMIT costs the same whatever it holds, and the
 * roll-up and index pages many files touch are written once per transaction instead of once per
 * file, so grouping is what makes bulk ingest fast.
 *
 * - A group is bounded: GROUP_FILES files, GROUP_RECORDS aggregate records, or GROUP_MS since
 *   its first file came in, whichever comes first.
 * - On PostgreSQL up to FILES_IN_FLIGHT files' statements are under way at once: the next file's
 *   rows are built while the database stores the last one's (no savepoint per file, whose two
 *   round trips each waited for every statement before them).
 * - A file that fails to write (bad data, a constraint) fails the group's transaction; its files
 *   are then written one transaction each, so the failing one is answered "unavailable" as a lone
 *   file would be and the others are stored. Such failures are rare: a file is parsed and checked
 *   before it is written.
 * - Whole files or nothing: a crash mid-group leaves the group unwritten, and running `ingest`
 *   again stores what is missing and answers the rest as duplicates. A report twice in one
 *   group is a duplicate the second time (the writer sees the group's own uncommitted rows).
 * - Roll-ups are written once per group: merged per organization, domain, day and policy domain
 *   and upserted at the end of the transaction (on SQLite in the order of the indexes ordered by
 *   source address), so a day's source seen in many reports is one upsert, not one per report.
 * - SQLite checks no foreign key row by row in a group's transaction: it reads the files'
 *   domains (the parents of every row written) again inside it, which the write lock keeps until
 *   the commit, and refuses a file whose domain was removed since it was routed.
 * - The group's body is database work only (PostgreSQL runs it again after a serialization
 *   failure).
 * - Each domain's report arrival (`last_report_at`) is noted per file and written once per group,
 *   the latest of its files that were stored (a duplicate's counts nowhere).
 * - After the group commits, the report events of its stored reports are evaluated once per
 *   domain on what the group left stored (as they were, per file, after the commit), in their
 *   own write; then each file's post-write work (reverse DNS, metrics, its answer) runs in file
 *   order, for the files that committed.
 *
 * Files not parsed ahead (too large to hold parsed) go through `ingestFile` on their own, after
 * the group before them, so answers keep the files' order. The HTTP upload, SMTP and IMAP paths
 * stay one transaction per file (`ingestFile`).
 */
import type { ServiceContext } from "../../http/access";
import type { OwnedDomain } from "../../lib/reports/routing";
import { domainNamesOf, recordReportArrival } from "../domains/service";
import { afterReportsStored, finishStored, holdForReportWrite, ingestFile, noteArrival, prepareFile, reportWrites, writeFailed, writePrepared, type IngestInput, type IngestResult, type PreparedFile, type Stored } from "./ingest";
import { reportWriter, type DeferredRollup } from "./store";

/**
 * files written in one transaction at most (256 would halve the commit time of small files on SQLite,
 * but hold about 30-100 MB more at once)
 */
export const GROUP_FILES = 64;
/** aggregate records written in one transaction at most (a file is never split) */
export const GROUP_RECORDS = 50_000;
/** a group is written at the latest this long after its first file came in */
export const GROUP_MS = 250;

export interface GroupIngestOptions {
  /** files per group (tests use small groups); GROUP_FILES by default */
  files?: number;
  /** told each file's answer, in file order, once its group committed */
  onResult?: (result: IngestResult) => void | Promise<void>;
}

/**
 * Collects files and writes them in groups. `add` each file in order (it may write a group),
 * then `finish` to write the last one. Answers come through `onResult`, in file order.
 */
export class GroupIngest {
  private pending: { input: IngestInput; prepared: PreparedFile | IngestResult }[] = [];
  private records = 0;
  private firstAt = 0;
  private readonly maxFiles: number;
  private owned: { orgId: string; domains: OwnedDomain[] } | null = null;

  constructor(
    private readonly deps: ServiceContext,
    private readonly options: GroupIngestOptions = {},
  ) {
    this.maxFiles = Math.max(1, options.files ?? GROUP_FILES);
  }

  async add(input: IngestInput): Promise<void> {
    if (input.parsed === undefined) {
      // not parsed ahead (a large file): its own path, streamed when it can be, after the files before it
      await this.flush();
      await this.answer(await ingestFile(this.deps, input));
      return;
    }
    if (!this.owned || this.owned.orgId !== input.orgId) {
      await this.flush();
      this.owned = { orgId: input.orgId, domains: await domainNamesOf(this.deps, input.orgId) };
    }
    if (this.pending.length === 0) this.firstAt = performance.now();
    const prepared = await prepareFile(this.deps, input, this.owned.domains, true);
    this.pending.push({ input, prepared });
    if ("plan" in prepared) this.records += prepared.records;
    if (this.pending.length >= this.maxFiles || this.records >= GROUP_RECORDS || performance.now() - this.firstAt >= GROUP_MS) await this.flush();
  }

  /** Writes the files collected so far. */
  async finish(): Promise<void> {
    await this.flush();
  }

  private async flush(): Promise<void> {
    const group = this.pending;
    this.pending = [];
    this.records = 0;
    // the organisation's domains are read again for the next group (one may have been added meanwhile)
    this.owned = null;
    if (group.length === 0) return;
    const toWrite = group.map((g) => g.prepared).filter((p): p is PreparedFile => "plan" in p);
    const written = toWrite.length ? await writeGroup(this.deps, toWrite) : new Map<PreparedFile, Stored[] | IngestResult>();
    // the report events of the group's stored reports, per organization: each domain's evaluated once
    const storedByOrg = new Map<string, Stored[]>();
    for (const file of toWrite) {
      const outcome = written.get(file)!;
      if (!Array.isArray(outcome)) continue;
      const list = storedByOrg.get(file.input.orgId);
      if (list) list.push(...outcome);
      else storedByOrg.set(file.input.orgId, [...outcome]);
    }
    for (const [orgId, stored] of storedByOrg) await afterReportsStored(this.deps, orgId, stored);
    for (const { prepared } of group) {
      if (!("plan" in prepared)) {
        await this.answer(prepared);
        continue;
      }
      const outcome = written.get(prepared)!;
      await this.answer(Array.isArray(outcome) ? finishStored(this.deps, prepared.input, prepared.kind, outcome) : outcome);
    }
  }

  private async answer(result: IngestResult): Promise<void> {
    await this.options.onResult?.(result);
  }
}

/**
 * Files whose writes are under way at once in a group (PostgreSQL): each file's statements are
 * sent without waiting for the answers to the files before it, so the next file's rows are built
 * while the database stores the last one's. SQLite writes on this thread: one at a time.
 */
export const FILES_IN_FLIGHT = 8;

/**
 * Writes the files in one transaction: each file's stored reports, or the answer refusing it.
 * A file that fails to write fails the transaction, and the files are then written one
 * transaction each (`writeOneByOne`), so the others are stored and the failing one is refused
 * alone, as a lone file would be.
 */
export async function writeGroup(deps: ServiceContext, files: PreparedFile[]): Promise<Map<PreparedFile, Stored[] | IngestResult>> {
  const now = deps.now();
  const inFlight = deps.store.dialect === "postgres" ? FILES_IN_FLIGHT : 1;
  let outcomes: (Stored[] | { error: unknown })[];
  try {
    outcomes = await deps.store.write(
      async () => {
        // the group's roll-ups, written once, merged, before the commit
        const groupRollups: DeferredRollup[] = [];
        // each domain's latest report arrival
        const groupArrivals = new Map<string, Date>();
        const writer = reportWriter(deps.store, { deferRollups: (r) => groupRollups.push(r) });
        // the parents of every row written: the files' domains (and so their organizations) are read
        // again inside the transaction, which keeps them until the commit (foreign keys are not
        // checked row by row here)
        const live = new Set<string>();
        const orgIds = [...new Set(files.map((f) => f.input.orgId))].sort();
        for (const orgId of orgIds) for (const d of await domainNamesOf(deps, orgId)) live.add(`${orgId}\n${d.id}`);
        // PostgreSQL: the rows the group's end updates (its domains' report arrivals, the roll-up version), taken now
        for (const orgId of orgIds) {
          const mine = files.filter((f) => f.input.orgId === orgId);
          await holdForReportWrite(deps, orgId, mine.flatMap((f) => f.plan.map((p) => p.domain.id)), mine.some((f) => f.kind === "aggregate"));
        }
        const writes: Promise<Stored[] | { error: unknown }>[] = [];
        /** the writes under way, oldest first */
        const running: Promise<unknown>[] = [];
        for (const file of files) {
          const gone = file.plan.find((p) => !live.has(`${file.input.orgId}\n${p.domain.id}`));
          if (gone) {
            writes.push(Promise.resolve({ error: new Error(`the domain ${gone.domain.name} was removed before the report was written`) }));
            continue;
          }
          if (running.length >= inFlight) await running.shift()!.catch(() => {});
          const write = writePrepared(deps, writer, file, now, groupArrivals);
          running.push(write);
          writes.push(write);
        }
        // every write settled before the transaction ends (a failed one has failed the rest: the first failure is thrown)
        const settled = await Promise.allSettled(writes);
        const failed = settled.find((s) => s.status === "rejected");
        if (failed) throw failed.reason;
        await writer.writeRollups(groupRollups);
        for (const [domainId, at] of groupArrivals) await recordReportArrival(deps, domainId, at);
        return settled.map((s) => (s as PromiseFulfilledResult<Stored[] | { error: unknown }>).value);
      },
      { foreignKeys: false, ...reportWrites(files[0]!.input.orgId) },
    );
  } catch (error) {
    // the store has already run the transaction again after another writer's conflict: what
    // still fails (most often one file's write) is written file by file
    deps.log.warn("reports.group_write_failed", { files: files.length, error, fallback: "one transaction per file" });
    return writeOneByOne(deps, files, now);
  }
  const result = new Map<PreparedFile, Stored[] | IngestResult>();
  files.forEach((file, i) => {
    const outcome = outcomes[i]!;
    result.set(file, Array.isArray(outcome) ? outcome : writeFailed(deps, file, outcome.error));
  });
  return result;
}

/** The files written one transaction each (after the group's transaction failed as a whole). */
async function writeOneByOne(deps: ServiceContext, files: PreparedFile[], now: Date): Promise<Map<PreparedFile, Stored[] | IngestResult>> {
  const writer = reportWriter(deps.store);
  const result = new Map<PreparedFile, Stored[] | IngestResult>();
  for (const file of files) {
    try {
      result.set(file, await deps.store.write(() => writePrepared(deps, writer, file, now), reportWrites(file.input.orgId)));
    } catch (error) {
      result.set(file, writeFailed(deps, file, error));
    }
  }
  return result;
}
