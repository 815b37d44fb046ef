/**
 * One aggregate report file (XML, or gzip / zlib of it) read and stored as it is decompressed:
 * the report's head (metadata and policy) is handed over as soon as it is read, then its records
 * in batches, so a report of any size holds one batch of records in memory, never the report.
 * The caller writes them inside the file's one transaction, so a refusal half-way (a malformed
 * tail, a bound passed) leaves nothing. Any other kind of file (zip, mail, JSON, a gzip of
 * something else) is `NotStreamable`: it goes through the whole-file parser instead.
 * Refusals are the whole-file parser's, in its words: the same reader, bounds and budget.
 */
import { Readable } from "node:stream";
import { createInflateRaw } from "node:zlib";
import { AggregateXmlReader, assertAggregateHead, type AggregateHead } from "../../lib/reports/aggregate";
import { assertFieldBounds } from "../../lib/reports/bounds";
import { Budget, concat, detectContainer, gzipPayload } from "../../lib/reports/container";
import { ReportRefusedError, reviveReportPeriod, yieldToEventLoop, type AggregateRecord, type ReportLimits } from "../../lib/reports/model";
import { collectWhenGrown, LARGE_REPORT_RECORDS } from "../../lib/memory";
import { textStream, type TextStream } from "../../lib/reports/text";
import { workerEntryUrl } from "../../lib/worker-entry";

/** records per batch handed to the writer: a report that does not end within its first batch is large (src/lib/memory.ts) */
export const RECORD_BATCH = LARGE_REPORT_RECORDS;
/** compressed bytes handed to the (native) inflater at a time */
const INPUT_STEP = 64 * 1024;
/** raw XML bytes decoded per step */
const XML_STEP = 256 * 1024;
/** decompressed bytes looked at before deciding what the document is */
const HEAD_BYTES = 4096;
/** decompressed bytes between turns of the event loop */
const YIELD_EVERY = 4 * 1024 * 1024;

/** The file is not one aggregate report XML document: parse it whole. */
export class NotStreamable extends Error {}

/** The parser failed in a way that is not a refusal (a bug, not the file): reported as unreadable. */
export class ParseCrashed extends Error {}

export interface RecordSink {
  /**
   * The report's head, once read; false stops reading (the report is already stored). `whole`
   * is every record of the report when it ended within the first batch; without it the report
   * is large (LARGE_REPORT_RECORDS) and the reading keeps memory near what is live from here on.
   */
  head(head: AggregateHead, whole?: AggregateRecord[]): Promise<boolean>;
  /** the next records, in document order */
  records(batch: AggregateRecord[]): Promise<void>;
}

export interface StreamedReport {
  head: AggregateHead;
  recordCount: number;
  /** false when the sink stopped the read at the head */
  complete: boolean;
}

/** Whether `bytes` could be one aggregate report read as it streams (the document inside decides). */
export function maybeStreamable(bytes: Uint8Array, limits: ReportLimits): boolean {
  if (bytes.length === 0 || bytes.length > limits.maxInputBytes) return false;
  const kind = detectContainer(bytes);
  return kind === "gzip" || kind === "zlib" || kind === "xml";
}

const sameIdentity = (a: AggregateHead, b: AggregateHead) =>
  a.reportId === b.reportId && a.reporterOrg === b.reporterOrg && a.policy.domain === b.policy.domain && a.dateBegin.getTime() === b.dateBegin.getTime() && a.dateEnd.getTime() === b.dateEnd.getTime();

/** Reads `bytes` (see maybeStreamable) into `sink`; throws ReportRefusedError, NotStreamable or ParseCrashed. */
export async function streamAggregate(bytes: Uint8Array, limits: ReportLimits, sink: RecordSink): Promise<StreamedReport> {
  const kind = detectContainer(bytes);
  if (!maybeStreamable(bytes, limits)) throw new NotStreamable();
  const parsing = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof ReportRefusedError || error instanceof NotStreamable) throw error;
      throw new ParseCrashed((error as Error).message);
    }
  };

  let head: AggregateHead | null = null;
  let stopped = false;
  /** whether the sink has the head */
  let handed = false;
  let batch: AggregateRecord[] = [];
  let recordCount = 0;
  /** the report goes on past its first batch: collectWhenGrown between steps from then on */
  let large = false;
  let document: { text: TextStream; reader: AggregateXmlReader } | null = null;
  let headChunks: Uint8Array[] = [];
  let headBytes = 0;

  /** one piece of the decompressed document */
  const push = (chunk: Uint8Array, final: boolean) =>
    parsing(() => {
      if (document) return document.reader.write(document.text.decode(chunk, final));
      headChunks.push(chunk);
      headBytes += chunk.length;
      if (headBytes < HEAD_BYTES && !final) return;
      const start = concat(headChunks, headBytes);
      headChunks = [];
      if (detectContainer(start) !== "xml") throw new NotStreamable();
      const text = textStream(start);
      const decoded = text.decode(start, final);
      assertAggregateHead(decoded);
      document = { text, reader: new AggregateXmlReader(limits) };
      document.reader.write(decoded);
    });

  /**
   * After each step: the head once a first batch is read (or the whole report, when it is
   * shorter: the sink then gets every record with the head), then full batches.
   */
  const flush = async (last: boolean, take = true) => {
    if (!document) return;
    const reader: AggregateXmlReader = document.reader;
    if (!head) {
      const read = parsing(() => reader.head());
      if (!read) return;
      parsing(() => assertFieldBounds({ ...read, kind: "aggregate", records: [] }, limits.now));
      head = read;
    }
    const taken = take ? reader.takeRecords() : [];
    if (taken.length) batch = batch.length ? batch.concat(taken) : taken;
    if (!handed) {
      if (!last && batch.length < RECORD_BATCH) return;
      handed = true;
      large = !last;
      if (!(await sink.head(head, last ? batch : undefined))) {
        stopped = true;
        return;
      }
    }
    if (batch.length >= RECORD_BATCH || (last && batch.length)) {
      const out = batch;
      batch = [];
      parsing(() => assertFieldBounds({ ...head!, kind: "aggregate", records: out }, limits.now));
      recordCount += out.length;
      await sink.records(out);
      // the batch is garbage now: a large report keeps memory near what is live (the roll-ups
      // held, one batch) instead of the heap growing with the garbage of every batch
      if (large) collectWhenGrown();
    }
  };

  let produced = 0;
  let lastYield = 0;
  const step = async () => {
    await flush(false);
    if (large) collectWhenGrown();
    if (produced - lastYield >= YIELD_EVERY) {
      lastYield = produced;
      await yieldToEventLoop();
    }
  };

  if (kind === "xml") {
    for (let i = 0; i < bytes.length && !stopped; i += XML_STEP) {
      const piece = bytes.subarray(i, i + XML_STEP);
      produced += piece.length;
      push(piece, i + XML_STEP >= bytes.length);
      await step();
    }
  } else {
    const data = kind === "gzip" ? parsing(() => gzipPayload(bytes)) : bytes.subarray(2);
    const budget = new Budget(limits, bytes.length);
    // native inflate, pulled a chunk at a time: the next input is read only once a chunk is parsed and written
    const input = Readable.from(
      (function* () {
        for (let i = 0; i < data.length; i += INPUT_STEP) yield data.subarray(i, i + INPUT_STEP);
      })(),
    );
    const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
    input.pipe(inflater);
    try {
      for await (const chunk of inflater as AsyncIterable<Buffer>) {
        if (stopped) break;
        budget.spend(chunk.length);
        produced += chunk.length;
        push(chunk, false);
        await step();
      }
    } catch (error) {
      if (error instanceof ReportRefusedError || error instanceof NotStreamable || error instanceof ParseCrashed) throw error;
      if (produced === 0) throw new ReportRefusedError("The compressed data is empty or damaged.");
      throw new ReportRefusedError(`The compressed data is damaged and could not be decompressed (${(error as Error).message}).`);
    } finally {
      input.destroy();
      inflater.destroy();
    }
    if (produced === 0 && !stopped) throw new ReportRefusedError("The compressed data is empty or damaged.");
    if (!stopped) push(new Uint8Array(0), true);
  }
  if (stopped) return { head: head!, recordCount: 0, complete: false };
  if (!document) throw new NotStreamable();

  const reader: AggregateXmlReader = (document as { reader: AggregateXmlReader }).reader;
  const report = parsing(() => reader.finish());
  const { records, ...finalHead } = report;
  if (head && !sameIdentity(head, finalHead)) throw new ReportRefusedError("The aggregate report names itself twice, differently (<report_metadata> or <policy_published> repeated after its records); it was refused.");
  if (records.length) batch = batch.concat(records);
  await flush(true, false);
  // the report's roll-ups are written next, from what is live
  if (large) collectWhenGrown();
  return { head: finalHead, recordCount, complete: !stopped };
}

/**
 * Compressed reports from this size are read on a worker thread (`streamAggregateOnWorker`):
 * the calling thread only writes what the worker parsed, a batch behind it, and the garbage of
 * decompressing and parsing stays in the worker's small heap. Smaller ones are read here (a
 * worker costs a few milliseconds to start). For XML sent as it is, ten times this.
 */
export const WORKER_MIN_COMPRESSED_BYTES = 128 * 1024;

/**
 * reports read on a worker thread since the process started (`onWorker`; `reused` of them by a
 * worker kept from the report before); read here because no worker could start (`here`) or
 * MAX_READING_WORKERS were busy (`busy`)
 */
export const workerReads = { onWorker: 0, reused: 0, here: 0, busy: 0 };

/**
 * How long a reading worker that has read a report to its end is kept for the next one, then
 * ended (its heap returned). The next large report within that time is read by it: no thread to
 * start, and the reader's code already compiled by the engine's JIT (a fresh worker handed its
 * first batch 90-130 ms after the request; bench:upload's second and third uploads took about 7%
 * less with the kept one: docs/benchmarks.md). A worker whose reading did not end (the caller
 * stopped taking batches: its write failed, the domain is not the organization's) is ended at
 * once. Changeable for tests.
 */
export const readingWorkerTiming = { keptMs: 30_000 };

/** Bun's Worker, which can stop holding the process open (the DOM's type in the project's libraries lacks it) */
type ReffedWorker = Worker & { ref(): void; unref(): void };

/** the worker kept after its last report, and its end */
let keptWorker: { worker: Worker; ending: ReturnType<typeof setTimeout> } | null = null;

/** The reading worker kept for the next report, if any (tests). */
export const keptReadingWorker = (): Worker | null => keptWorker?.worker ?? null;

/** A worker to read a report on: the kept one, or a new one (throws when none can start). */
function takeReadingWorker(): Worker {
  if (keptWorker) {
    const { worker, ending } = keptWorker;
    keptWorker = null;
    clearTimeout(ending);
    (worker as ReffedWorker).ref();
    workerReads.reused++;
    return worker;
  }
  const worker = new Worker(workerEntryUrl(import.meta.url, "stream-worker"));
  // kept, a worker that ends by itself is not handed a report
  worker.addEventListener("close", () => {
    if (keptWorker?.worker !== worker) return;
    clearTimeout(keptWorker.ending);
    keptWorker = null;
  });
  return worker;
}

/** Keeps `worker`, whose reading ended, for the next report (readingWorkerTiming.keptMs); it never keeps the process alive. */
function keepReadingWorker(worker: Worker): void {
  worker.onmessage = null;
  worker.onerror = null;
  if (keptWorker) return worker.terminate();
  (worker as ReffedWorker).unref();
  const ending = setTimeout(() => {
    if (keptWorker?.worker === worker) keptWorker = null;
    worker.terminate();
  }, readingWorkerTiming.keptMs);
  (ending as { unref?: () => void }).unref?.();
  keptWorker = { worker, ending };
}

/**
 * Worker threads reading reports at once (PostgreSQL writes several files' transactions at a
 * time): a report that comes while as many are under way is read on the calling thread, so
 * memory never holds more than this many workers' heaps (with two cores, a second worker would
 * mostly take turns with the first).
 */
export const MAX_READING_WORKERS = 1;
let readingWorkers = 0;

/** Whether `bytes` (see maybeStreamable) is large enough to be read on a worker thread. */
export function worthAWorker(bytes: Uint8Array): boolean {
  return bytes.length >= (detectContainer(bytes) === "xml" ? 10 : 1) * WORKER_MIN_COMPRESSED_BYTES;
}

/**
 * batches the worker sends before the first of them is written: it reads the next while this
 * thread writes (two ahead was no faster, and showed in the peak memory of the largest reports)
 */
const BATCHES_AHEAD = 1;

/** From the calling thread to the worker. */
export type StreamRequest = { start: { bytes: Uint8Array; limits: ReportLimits } } | { go: boolean } | { written: true };

/** From the worker: the head (and the whole report's records when it ended within a batch), a batch, the end, or why it stopped. JSON texts: cheaper to pass than cloned objects. */
export type StreamMessage =
  | { head: string; whole: string | null }
  | { records: string }
  | { done: string }
  | { refused: { message: string; code: ReportRefusedError["code"] } }
  | { notStreamable: true }
  | { crashed: string };

/**
 * `streamAggregate` with the reading on a worker thread (stream-worker.ts): the same sink calls,
 * in the same order, with the same refusals. The worker reads at most BATCHES_AHEAD batches ahead
 * of what `sink` has written. When no worker can start, the report is read here.
 */
export async function streamAggregateOnWorker(bytes: Uint8Array, limits: ReportLimits, sink: RecordSink): Promise<StreamedReport> {
  if (readingWorkers >= MAX_READING_WORKERS) {
    workerReads.busy++;
    return streamAggregate(bytes, limits, sink);
  }
  let worker: Worker;
  try {
    worker = takeReadingWorker();
  } catch {
    workerReads.here++;
    return streamAggregate(bytes, limits, sink);
  }
  readingWorkers++;
  // the worker's messages wait in `inbox` for the loop below, which runs in the caller's async
  // context: the sink's writes belong to the caller's transaction (on PostgreSQL the store finds it
  // there), which they would not if they ran in the message callbacks
  const inbox: (StreamMessage | { lost: string })[] = [];
  let wake: (() => void) | null = null;
  let heard = false;
  const deliver = (message: StreamMessage | { lost: string }) => {
    inbox.push(message);
    const resume = wake;
    wake = null;
    resume?.();
  };
  worker.onmessage = (event: MessageEvent<StreamMessage>) => {
    if (!heard) workerReads.onWorker++;
    heard = true;
    deliver(event.data);
  };
  worker.onerror = (event) => deliver({ lost: event.message || "the worker thread stopped" });
  const next = async () => {
    while (!inbox.length) await new Promise<void>((resolve) => (wake = resolve));
    return inbox.shift()!;
  };
  /** the worker's reading ended (its last message came): it can read the next report */
  let ended = false;
  try {
    worker.postMessage({ start: { bytes, limits } } satisfies StreamRequest);
    let large = false;
    for (;;) {
      const message = await next();
      // the worker's own reading ended (its streamAggregate settled): it may read the next report
      if ("done" in message || "refused" in message || "notStreamable" in message) ended = true;
      if ("head" in message) {
        large = message.whole === null;
        const go = await sink.head(reviveReportPeriod(JSON.parse(message.head) as AggregateHead), message.whole === null ? undefined : (JSON.parse(message.whole) as AggregateRecord[]));
        worker.postMessage({ go } satisfies StreamRequest);
      } else if ("records" in message) {
        await sink.records(JSON.parse(message.records) as AggregateRecord[]);
        worker.postMessage({ written: true } satisfies StreamRequest);
        // the batch is garbage now (see streamAggregate)
        if (large) collectWhenGrown();
      } else if ("done" in message) {
        const result = JSON.parse(message.done) as StreamedReport;
        if (large) collectWhenGrown();
        reviveReportPeriod(result.head);
        return result;
      } else if ("refused" in message) throw new ReportRefusedError(message.refused.message, message.refused.code);
      else if ("notStreamable" in message) throw new NotStreamable();
      else if ("crashed" in message) throw new ParseCrashed(message.crashed);
      else if (heard) throw new ParseCrashed(message.lost);
      else {
        // a worker that never ran (its entry missing, no threads left): read here instead
        workerReads.here++;
        return await streamAggregate(bytes, limits, sink);
      }
    }
  } finally {
    readingWorkers--;
    if (ended) keepReadingWorker(worker);
    else worker.terminate();
  }
}

/** The worker's side of streamAggregateOnWorker: reads each report it is sent (one at a time), posting what it reads as `post` says. */
export function serveStream(post: (message: StreamMessage) => void): (request: StreamRequest) => void {
  let answerHead: ((go: boolean) => void) | null = null;
  let unwritten = 0;
  let whenWritten: (() => void) | null = null;
  return (request) => {
    if ("go" in request) return answerHead?.(request.go);
    if ("written" in request) {
      unwritten--;
      const resume = whenWritten;
      whenWritten = null;
      return resume?.();
    }
    const { bytes, limits } = request.start;
    // a report of its own: nothing of the one before is waited for (its last batch was acknowledged before it ended)
    answerHead = null;
    unwritten = 0;
    whenWritten = null;
    streamAggregate(bytes, limits, {
      head: (head, whole) =>
        new Promise<boolean>((resolve) => {
          answerHead = resolve;
          post({ head: JSON.stringify(head), whole: whole ? JSON.stringify(whole) : null });
        }),
      async records(batch) {
        while (unwritten >= BATCHES_AHEAD) await new Promise<void>((resolve) => (whenWritten = resolve));
        unwritten++;
        post({ records: JSON.stringify(batch) });
      },
    })
      .then(
        (result) => post({ done: JSON.stringify(result) }),
        (error) =>
          post(
            error instanceof ReportRefusedError
              ? { refused: { message: error.message, code: error.code } }
              : error instanceof NotStreamable
                ? { notStreamable: true }
                : { crashed: String((error as Error)?.message ?? error) },
          ),
      )
      // what the report left in this thread's heap is garbage: handed back while the worker waits for the next
      .finally(() => Bun.gc(true));
  };
}
