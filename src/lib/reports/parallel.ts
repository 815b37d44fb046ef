/**
 * Parsing on worker threads while the caller stores what was parsed: the bulk paths (CLI
 * ingest of many files, the ingest benchmark) use both cores. Files come back in the order
 * they went in; at most `maxInFlight` files (and `maxInFlightBytes` of them) are parsed ahead
 * of the caller, so nothing piles up however many files there are. A file too large to be
 * worth holding parsed (`maxPreparseBytes`) comes back unparsed for the caller's own path (the
 * ingestion service streams such a report into the database). If a worker cannot start or
 * dies, the files are parsed on the calling thread instead.
 *
 * The window is larger than a bulk group (GROUP_FILES, group-ingest.ts): while the caller writes
 * a group, which takes longer than parsing it, the workers go on with the next one instead of
 * stopping after a few files (16 files ahead left the writer waiting for the parse a quarter of
 * the time). What is held parsed is bounded too (`maxParsedAheadBytes`), so a run of large files
 * is not held many at once.
 */
import { availableParallelism } from "node:os";
import { workerEntryUrl } from "../worker-entry";
import { detectContainer, type ContainerKind } from "./container";
import { DEFAULT_LIMITS, ReportRefusedError, reviveReportPeriod, type ParsedReport, type ReportLimits } from "./model";
import { parseReportFile, type ParsedFile } from "./parse";
import type { ParseAnswer, ParseRequest } from "./parse-worker";

export interface ParallelOptions {
  limits?: ReportLimits;
  /** worker threads (default: one fewer than the cores, at least one, at most four) */
  workers?: number;
  /** files parsed ahead of the caller (default 128, twice a bulk group) */
  maxInFlight?: number;
  /** bytes of files parsed ahead of the caller */
  maxInFlightBytes?: number;
  /**
   * files parsed ahead and not yet taken, as the JSON text they come in (about a third of what
   * they hold parsed; a file still being parsed counted as an estimate from its bytes): no more files are
   * sent to the workers while those exceed it (default 16 MB)
   */
  maxParsedAheadBytes?: number;
  /** larger files are not parsed ahead (their `parsed` is undefined) */
  maxPreparseBytes?: number;
  /** counts where files were parsed, filled in as they are */
  stats?: ParseStats;
  /** told once if the workers cannot run (files are then parsed on the calling thread) */
  onWorkersLost?: (reason: string) => void;
}

export interface ParseStats {
  onWorkers: number;
  /** on the calling thread, because no worker could run */
  here: number;
}

export interface Parsed<T> {
  input: T;
  /** the reports, why the file was refused (a ReportRefusedError) or crashed, or undefined when not parsed ahead */
  parsed: ParsedFile | Error | undefined;
}

const MB = 1024 * 1024;

/**
 * What a file's JSON text is estimated to be until it is parsed: about ten times the bytes of a
 * compressed one (gzip, zip or zlib), twice those of any other.
 */
const estimatedJson = (bytes: Uint8Array) => bytes.length * (COMPRESSED.has(detectContainer(bytes)) ? 10 : 2);
const COMPRESSED = new Set<ContainerKind>(["gzip", "zip", "zlib"]);

/** A file's parse with the size of its JSON text (for one parsed on the calling thread, the estimate). */
interface Sized {
  parsed: ParsedFile | Error;
  size: number;
}

/** Revives what JSON turned into strings. */
function revive(file: ParsedFile): ParsedFile {
  for (const report of file.reports as ParsedReport[]) {
    if (report.kind === "failure") report.arrivalDate = report.arrivalDate ? new Date(report.arrivalDate) : null;
    else reviveReportPeriod(report);
  }
  return file;
}

function answerOf(answer: ParseAnswer): Sized {
  if ("json" in answer) return { parsed: revive(JSON.parse(answer.json) as ParsedFile), size: answer.json.length };
  if ("refused" in answer) return { parsed: new ReportRefusedError(answer.refused.message, answer.refused.code), size: 0 };
  return { parsed: new Error(`the parser crashed: ${answer.crashed}`), size: 0 };
}

class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, (answer: Sized) => void>();
  private next = 0;
  private broken = false;

  constructor(
    size: number,
    private readonly stats: ParseStats,
    private readonly onLost?: (reason: string) => void,
  ) {
    for (let i = 0; i < size; i++) {
      let worker: Worker;
      try {
        worker = new Worker(workerEntryUrl(import.meta.url, "parse-worker"));
      } catch (error) {
        this.fail(String(error));
        break;
      }
      worker.onmessage = (event: MessageEvent<ParseAnswer>) => {
        const resolve = this.waiting.get(event.data.id);
        this.waiting.delete(event.data.id);
        resolve?.(answerOf(event.data));
      };
      worker.onerror = (event) => this.fail(event.message);
      this.workers.push(worker);
    }
    if (this.workers.length === 0) this.broken = true;
  }

  /** a worker died or could not start: whatever it held is parsed here instead */
  private fail(reason: string): void {
    if (!this.broken) this.onLost?.(reason);
    this.broken = true;
    for (const [, resolve] of this.waiting) resolve({ parsed: new WorkerLost(), size: 0 });
    this.waiting.clear();
  }

  async parse(bytes: Uint8Array, limits: ReportLimits): Promise<Sized> {
    if (!this.broken) {
      const id = this.next++;
      const worker = this.workers[id % this.workers.length]!;
      const answer = await new Promise<Sized>((resolve) => {
        this.waiting.set(id, resolve);
        worker.postMessage({ id, bytes, limits } satisfies ParseRequest);
      });
      if (!(answer.parsed instanceof WorkerLost)) {
        this.stats.onWorkers++;
        return answer;
      }
    }
    this.stats.here++;
    // parsed here: its size as JSON is not known
    const size = estimatedJson(bytes);
    try {
      return { parsed: await parseReportFile(bytes, limits), size };
    } catch (error) {
      return { parsed: error as Error, size };
    }
  }

  close(): void {
    for (const worker of this.workers) worker.terminate();
    this.workers.length = 0;
  }
}

class WorkerLost extends Error {}

export function defaultWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/**
 * Yields every input with its parse, in order, parsing ahead on worker threads. `bytesOf`
 * gives an input's file content (sent to the worker as a copy; the input keeps its own).
 */
export async function* parseInBackground<T>(inputs: Iterable<T>, bytesOf: (input: T) => Uint8Array, options: ParallelOptions = {}): AsyncGenerator<Parsed<T>> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const maxInFlight = options.maxInFlight ?? 128;
  const maxInFlightBytes = options.maxInFlightBytes ?? 64 * MB;
  const maxPreparseBytes = options.maxPreparseBytes ?? 1 * MB;
  const maxParsedAheadBytes = options.maxParsedAheadBytes ?? 16 * MB;
  const pool = new WorkerPool(options.workers ?? defaultWorkers(), options.stats ?? { onWorkers: 0, here: 0 }, options.onWorkersLost);
  const queue: { input: T; bytes: number; size: number; parsed: Promise<ParsedFile | Error | undefined> }[] = [];
  let queuedBytes = 0;
  /** the JSON size of the queued files (estimated for those still being parsed) */
  let parsedAhead = 0;
  const iterator = inputs[Symbol.iterator]();
  let done = false;
  const fill = () => {
    while (!done && queue.length < maxInFlight && (queue.length === 0 || (queuedBytes < maxInFlightBytes && parsedAhead < maxParsedAheadBytes))) {
      const step = iterator.next();
      if (step.done) {
        done = true;
        return;
      }
      const input = step.value;
      const bytes = bytesOf(input);
      const ahead = bytes.length > 0 && bytes.length <= maxPreparseBytes;
      const entry = { input, bytes: bytes.length, size: 0, parsed: Promise.resolve<ParsedFile | Error | undefined>(undefined) };
      if (ahead) {
        entry.size = estimatedJson(bytes);
        parsedAhead += entry.size;
        entry.parsed = pool.parse(bytes, limits).then((answer) => {
          // still queued (a file is taken only once its parse is in): its estimate becomes its size
          parsedAhead += answer.size - entry.size;
          entry.size = answer.size;
          return answer.parsed;
        });
      }
      queue.push(entry);
      queuedBytes += bytes.length;
    }
  };
  try {
    fill();
    while (queue.length > 0) {
      const head = queue.shift()!;
      queuedBytes -= head.bytes;
      const parsed = await head.parsed;
      parsedAhead -= head.size;
      fill();
      yield { input: head.input, parsed };
    }
  } finally {
    pool.close();
  }
}
