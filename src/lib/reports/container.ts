/**
 * Containers, detected by content (never by file name): gzip (odd header flags, trailing
 * bytes), zlib, zip (one or more entries), and raw documents. Every decompression runs
 * through one Budget per file, so a file cannot grow past the decompressed-size and
 * compression-ratio bounds however it nests. Decompression is streamed: each piece goes to
 * a consumer as it is produced (a report parser, which may refuse at once), compressed input
 * is fed a little at a time, and the event loop gets a turn after every few megabytes.
 */
// fflate sets up its Huffman tables when loaded: loaded with the first compressed report, not at start
const fflate = () => require("fflate") as typeof import("fflate");
import { inflateRawSync } from "node:zlib";
import { MB, ReportRefusedError, yieldToEventLoop, type ReportLimits } from "./model";

export type ContainerKind = "gzip" | "zlib" | "zip" | "mail" | "xml" | "json" | "unknown";

/** Tracks how much a file has decompressed to, against the file's compressed size. */
export class Budget {
  private produced = 0;
  constructor(
    private readonly limits: ReportLimits,
    private readonly inputBytes: number,
  ) {}

  private get ratioCap(): number {
    return Math.max(this.limits.ratioCheckAfterBytes, this.inputBytes * this.limits.maxCompressionRatio);
  }

  /** bytes the file may still decompress to */
  get remaining(): number {
    return Math.max(0, Math.min(this.limits.maxDecompressedBytes, this.ratioCap) - this.produced);
  }

  /** the refusal for going past whichever bound is the tighter one */
  exceeded(): ReportRefusedError {
    return this.limits.maxDecompressedBytes <= this.ratioCap
      ? new ReportRefusedError(`The file decompresses to more than ${MB(this.limits.maxDecompressedBytes)}, the most a report may take.`, "too_large")
      : new ReportRefusedError(`The file expands more than ${this.limits.maxCompressionRatio} times when decompressed, which looks like a compression bomb; it was refused.`, "too_large");
  }

  spend(bytes: number): void {
    if (bytes > this.remaining) throw this.exceeded();
    this.produced += bytes;
  }
}

const startsWith = (bytes: Uint8Array, ...sig: number[]) => sig.every((b, i) => bytes[i] === b);

/** First non-blank character after an optional BOM, as text. */
function leadingText(bytes: Uint8Array, length = 512): string {
  let start = 0;
  if (startsWith(bytes, 0xef, 0xbb, 0xbf)) start = 3;
  if (startsWith(bytes, 0xff, 0xfe) || startsWith(bytes, 0xfe, 0xff)) return new TextDecoder(bytes[0] === 0xff ? "utf-16le" : "utf-16be").decode(bytes.subarray(2, 2 + length * 2)).trimStart();
  if (bytes.length >= 4 && bytes[0] === 0x3c && bytes[1] === 0) return new TextDecoder("utf-16le").decode(bytes.subarray(0, length * 2)).trimStart();
  return new TextDecoder("latin1").decode(bytes.subarray(start, start + length)).trimStart();
}

export function detectContainer(bytes: Uint8Array): ContainerKind {
  if (startsWith(bytes, 0x1f, 0x8b)) return "gzip";
  if (startsWith(bytes, 0x50, 0x4b, 0x03, 0x04) || startsWith(bytes, 0x50, 0x4b, 0x05, 0x06)) return "zip";
  if (bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0) return "zlib";
  const head = leadingText(bytes);
  if (head.startsWith("<")) return "xml";
  if (head.startsWith("{")) return "json";
  // an mbox "From " line, or RFC 5322 header fields
  if (/^From \S/.test(head) || /^[A-Za-z][A-Za-z0-9-]*:[^\r\n]*\r?\n/.test(head)) return "mail";
  return "unknown";
}

/** compressed bytes fed per step: DEFLATE expands at most ~1,032×, so a step yields ≤ ~1 MB */
const INPUT_STEP = 1024;
/** decompressed bytes between turns of the event loop */
const YIELD_EVERY = 4 * 1024 * 1024;

/** Receives decompressed bytes as they are produced; `final` marks the end of one file. */
export type ChunkConsumer = (chunk: Uint8Array, final: boolean) => void;

const damaged = (error: unknown) =>
  error instanceof ReportRefusedError ? error : new ReportRefusedError(`The compressed data is damaged and could not be decompressed (${(error as Error).message}).`);

/** Feeds `data` to `push` a step at a time, giving the event loop a turn as output accumulates. */
async function feedInSteps(data: Uint8Array, push: (step: Uint8Array, last: boolean) => void, produced: () => number): Promise<void> {
  let lastYield = 0;
  for (let i = 0; i < data.length; i += INPUT_STEP) {
    push(data.subarray(i, i + INPUT_STEP), i + INPUT_STEP >= data.length);
    if (produced() - lastYield >= YIELD_EVERY) {
      lastYield = produced();
      await yieldToEventLoop();
    }
  }
}

/**
 * Output a one-shot native inflate may produce; past it (a large report, a bomb, a document
 * the parser should refuse early) the streamed path runs instead.
 */
const NATIVE_MAX = 16 * 1024 * 1024;
/** compressed bytes not tried in one shot */
const LIKELY_TOO_LARGE = 1024 * 1024;
/** compressed bytes that cannot expand past NATIVE_MAX (DEFLATE expands 1,032 times at most) */
const SMALL_INPUT = Math.floor(NATIVE_MAX / 1032);
/** decompressed bytes handed to the consumer at a time after a one-shot inflate */
const HAND_OVER = 1024 * 1024;

/**
 * The common case, a report of a few MB at most, inflated natively in one call (zlib: several
 * times faster than the streamed JS inflater), then handed over in pieces. null when the output
 * would pass `NATIVE_MAX` or the budget: the caller streams instead.
 */
function inflateNative(data: Uint8Array, budget: Budget): Uint8Array | null {
  // report XML compresses 15 to 30 times: this much input would pass NATIVE_MAX, and inflating it to find out is work thrown away
  if (data.length > LIKELY_TOO_LARGE) return null;
  const limit = Math.min(budget.remaining, NATIVE_MAX);
  try {
    if (data.length <= SMALL_INPUT) {
      // cannot expand past NATIVE_MAX: zlib straight, without node:zlib's output bookkeeping
      const whole = Bun.inflateSync(data as Uint8Array<ArrayBuffer>);
      return whole.length <= limit ? whole : null;
    }
    return inflateRawSync(data, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) return null;
    throw damaged(error);
  }
}

/** Raw DEFLATE → `consume`, never past the budget. Trailing bytes after the stream are ignored. */
async function inflateStreamed(data: Uint8Array, budget: Budget, consume: ChunkConsumer): Promise<void> {
  const whole = inflateNative(data, budget);
  if (whole) {
    if (whole.length === 0) throw new ReportRefusedError("The compressed data is empty or damaged.");
    budget.spend(whole.length);
    for (let i = 0; i < whole.length; i += HAND_OVER) {
      const last = i + HAND_OVER >= whole.length;
      consume(whole.subarray(i, i + HAND_OVER), last);
      if (!last && (i + HAND_OVER) % YIELD_EVERY === 0) await yieldToEventLoop();
    }
    return;
  }
  let produced = 0;
  const inflate = new (fflate().Inflate)((chunk, final) => {
    budget.spend(chunk.length);
    produced += chunk.length;
    if (final && produced === 0) throw new ReportRefusedError("The compressed data is empty or damaged.");
    consume(chunk, final);
  });
  try {
    await feedInSteps(data, (step, last) => inflate.push(step, last), () => produced);
  } catch (error) {
    throw damaged(error);
  }
}

/**
 * gzip (RFC 1952) with any header flags (FEXTRA, FNAME, FCOMMENT, FHCRC), parsed by hand
 * so odd headers and trailing bytes after the stream do not stop us.
 */
export function gunzipStreamed(bytes: Uint8Array, budget: Budget, consume: ChunkConsumer): Promise<void> {
  return inflateStreamed(gzipPayload(bytes), budget, consume);
}

/** The DEFLATE stream inside a gzip file (its header skipped, whatever flags it has). */
export function gzipPayload(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 18) throw new ReportRefusedError("The gzip file is truncated.");
  if (bytes[2] !== 8) throw new ReportRefusedError("The gzip file uses an unknown compression method.");
  const flags = bytes[3]!;
  let at = 10;
  if (flags & 0x04) at += 2 + (bytes[at]! | (bytes[at + 1]! << 8)); // FEXTRA
  if (flags & 0x08) while (at < bytes.length && bytes[at++] !== 0); // FNAME
  if (flags & 0x10) while (at < bytes.length && bytes[at++] !== 0); // FCOMMENT
  if (flags & 0x02) at += 2; // FHCRC
  if (at >= bytes.length) throw new ReportRefusedError("The gzip file is truncated.");
  return bytes.subarray(at);
}

export function unzlibStreamed(bytes: Uint8Array, budget: Budget, consume: ChunkConsumer): Promise<void> {
  return inflateStreamed(bytes.subarray(2), budget, consume);
}

/**
 * Every file in a zip archive (directories skipped), decompressed within the budget, each
 * streamed to the consumer `openEntry` gives for it. Resolves to the number of non-empty files.
 */
export async function unzipStreamed(bytes: Uint8Array, budget: Budget, maxEntries: number, openEntry: (name: string) => ChunkConsumer): Promise<number> {
  let entries = 0;
  let nonEmpty = 0;
  let produced = 0;
  const { Unzip, UnzipInflate, UnzipPassThrough } = fflate();
  const unzip = new Unzip((file) => {
    if (file.name.endsWith("/")) return;
    if (++entries > maxEntries) throw new ReportRefusedError(`The archive holds more than ${maxEntries} files, the most one upload may hold.`, "too_large");
    const consume = openEntry(file.name);
    let size = 0;
    file.ondata = (error, chunk, final) => {
      if (error) throw error instanceof ReportRefusedError ? error : new ReportRefusedError(`The zip entry "${file.name}" is damaged (${error.message}).`);
      budget.spend(chunk.length);
      produced += chunk.length;
      size += chunk.length;
      if (final && size > 0) nonEmpty++;
      if (size > 0) consume(chunk, final);
    };
    try {
      file.start();
    } catch (error) {
      if (error instanceof ReportRefusedError) throw error;
      throw new ReportRefusedError(`The zip entry "${file.name}" uses a compression method that is not supported (${(error as Error).message}).`);
    }
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  try {
    await feedInSteps(bytes, (step, last) => unzip.push(step, last), () => produced);
  } catch (error) {
    if (error instanceof ReportRefusedError) throw error;
    throw new ReportRefusedError(`The zip archive is damaged (${(error as Error).message}).`);
  }
  if (nonEmpty === 0) throw new ReportRefusedError("The zip archive holds no readable file.");
  return nonEmpty;
}

export function concat(chunks: Uint8Array[], total = chunks.reduce((n, c) => n + c.length, 0)): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
