/**
 * Parsing on worker threads while the caller stores what was parsed: the bulk paths (CLI
 * ingest of many files, the ingest benchmark) use both cores. Files come back in the order
 * they went in; at most `maxInFlight` files (and `maxInFlightBytes` of them) are parsed ahead
 * of the caller, so nothing piles up however many files there are. A file too large to be
 * worth holding parsed (`maxPreparseBytes`) comes back unparsed for the caller's own path (the
 * ingestion service streams such a report into the database). If a worker cannot start or
 * dies, the files are parsed on the calling thread instead.
 */
import { availableParallelism } from "node:os";
import { DEFAULT_LIMITS, ReportRefusedError, type ParsedReport, type ReportLimits } from "./model";
import { parseReportFile, type ParsedFile } from "./parse";
import type { ParseAnswer, ParseRequest } from "./parse-worker";

export interface ParallelOptions {
  limits?: ReportLimits;
  /** worker threads (default: one fewer than the cores, at least one, at most four) */
  workers?: number;
  /** files parsed ahead of the caller */
  maxInFlight?: number;
  /** bytes of files parsed ahead of the caller */
  maxInFlightBytes?: number;
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

/** Revives what JSON turned into strings. */
function revive(file: ParsedFile): ParsedFile {
  for (const report of file.reports as ParsedReport[]) {
    if (report.kind === "failure") report.arrivalDate = report.arrivalDate ? new Date(report.arrivalDate) : null;
    else {
      report.dateBegin = new Date(report.dateBegin);
      report.dateEnd = new Date(report.dateEnd);
    }
  }
  return file;
}

function answerOf(answer: ParseAnswer): ParsedFile | Error {
  if ("json" in answer) return revive(JSON.parse(answer.json) as ParsedFile);
  if ("refused" in answer) return new ReportRefusedError(answer.refused.message, answer.refused.code);
  return new Error(`the parser crashed: ${answer.crashed}`);
}

class WorkerPool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, (answer: ParsedFile | Error) => void>();
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
        worker = new Worker(workerUrl());
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
    for (const [, resolve] of this.waiting) resolve(new WorkerLost());
    this.waiting.clear();
  }

  async parse(bytes: Uint8Array, limits: ReportLimits): Promise<ParsedFile | Error> {
    if (!this.broken) {
      const id = this.next++;
      const worker = this.workers[id % this.workers.length]!;
      const answer = await new Promise<ParsedFile | Error>((resolve) => {
        this.waiting.set(id, resolve);
        worker.postMessage({ id, bytes, limits } satisfies ParseRequest);
      });
      if (!(answer instanceof WorkerLost)) {
        this.stats.onWorkers++;
        return answer;
      }
    }
    this.stats.here++;
    try {
      return await parseReportFile(bytes, limits);
    } catch (error) {
      return error as Error;
    }
  }

  close(): void {
    for (const worker of this.workers) worker.terminate();
    this.workers.length = 0;
  }
}

class WorkerLost extends Error {}

/**
 * The worker's entry: this folder's parse-worker.ts, or inside the built executable (where
 * modules live under /$bunfs/root/) the parse-worker.js entry scripts/build.ts adds beside the main one.
 */
function workerUrl(): string {
  return new URL(import.meta.url.includes("$bunfs") ? "./parse-worker.js" : "./parse-worker.ts", import.meta.url).href;
}

export function defaultWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/**
 * Yields every input with its parse, in order, parsing ahead on worker threads. `bytesOf`
 * gives an input's file content (sent to the worker as a copy; the input keeps its own).
 */
export async function* parseInBackground<T>(inputs: Iterable<T>, bytesOf: (input: T) => Uint8Array, options: ParallelOptions = {}): AsyncGenerator<Parsed<T>> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const maxInFlight = options.maxInFlight ?? 16;
  const maxInFlightBytes = options.maxInFlightBytes ?? 64 * MB;
  const maxPreparseBytes = options.maxPreparseBytes ?? 1 * MB;
  const pool = new WorkerPool(options.workers ?? defaultWorkers(), options.stats ?? { onWorkers: 0, here: 0 }, options.onWorkersLost);
  const queue: { input: T; bytes: number; parsed: Promise<ParsedFile | Error | undefined> }[] = [];
  let queuedBytes = 0;
  const iterator = inputs[Symbol.iterator]();
  let done = false;
  const fill = () => {
    while (!done && queue.length < maxInFlight && (queue.length === 0 || queuedBytes < maxInFlightBytes)) {
      const step = iterator.next();
      if (step.done) {
        done = true;
        return;
      }
      const input = step.value;
      const bytes = bytesOf(input);
      const ahead = bytes.length > 0 && bytes.length <= maxPreparseBytes;
      queue.push({ input, bytes: bytes.length, parsed: ahead ? pool.parse(bytes, limits) : Promise.resolve(undefined) });
      queuedBytes += bytes.length;
    }
  };
  try {
    fill();
    while (queue.length > 0) {
      const head = queue.shift()!;
      queuedBytes -= head.bytes;
      const parsed = await head.parsed;
      fill();
      yield { input: head.input, parsed };
    }
  } finally {
    pool.close();
  }
}
