/**
 * Containers, detected by content (never by file name): gzip (odd header flags, trailing
 * bytes), zlib, zip (one or more entries), and raw documents. Every decompression runs
 * through one Budget per file, so a file cannot grow past the decompressed-size and
 * compression-ratio bounds however it nests.
 */
import { Unzip, UnzipInflate, UnzipPassThrough } from "fflate";
import { inflateRawSync } from "node:zlib";
import { MB, ReportRefusedError, type ReportLimits } from "./model";

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

const CHUNK = 64 * 1024;

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Raw DEFLATE → bytes with the native zlib, never producing more than the budget allows
 * (maxOutputLength stops a bomb without allocating it). Trailing bytes after the end of the
 * stream are ignored.
 */
function inflateBounded(data: Uint8Array, budget: Budget): Uint8Array {
  const allowance = budget.remaining;
  if (allowance <= 0) throw budget.exceeded();
  let out: Uint8Array;
  try {
    out = inflateRawSync(data, { maxOutputLength: allowance });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) throw budget.exceeded();
    throw new ReportRefusedError(`The compressed data is damaged and could not be decompressed (${(error as Error).message}).`);
  }
  budget.spend(out.length);
  if (out.length === 0) throw new ReportRefusedError("The compressed data is empty or damaged.");
  return out;
}

/**
 * gzip (RFC 1952) with any header flags (FEXTRA, FNAME, FCOMMENT, FHCRC), parsed by hand
 * so odd headers and trailing bytes after the stream do not stop us.
 */
export function gunzipBounded(bytes: Uint8Array, budget: Budget): Uint8Array {
  if (bytes.length < 18) throw new ReportRefusedError("The gzip file is truncated.");
  if (bytes[2] !== 8) throw new ReportRefusedError("The gzip file uses an unknown compression method.");
  const flags = bytes[3]!;
  let at = 10;
  if (flags & 0x04) at += 2 + (bytes[at]! | (bytes[at + 1]! << 8)); // FEXTRA
  if (flags & 0x08) while (at < bytes.length && bytes[at++] !== 0); // FNAME
  if (flags & 0x10) while (at < bytes.length && bytes[at++] !== 0); // FCOMMENT
  if (flags & 0x02) at += 2; // FHCRC
  if (at >= bytes.length) throw new ReportRefusedError("The gzip file is truncated.");
  return inflateBounded(bytes.subarray(at), budget);
}

export function unzlibBounded(bytes: Uint8Array, budget: Budget): Uint8Array {
  return inflateBounded(bytes.subarray(2), budget);
}

export interface ArchiveEntry {
  name: string;
  bytes: Uint8Array;
}

/** Every file in a zip archive (directories skipped), decompressed within the budget. */
export function unzipBounded(bytes: Uint8Array, budget: Budget, maxEntries: number): ArchiveEntry[] {
  const entries: ArchiveEntry[] = [];
  const unzip = new Unzip((file) => {
    if (file.name.endsWith("/")) return;
    if (entries.length >= maxEntries) throw new ReportRefusedError(`The archive holds more than ${maxEntries} files, the most one upload may hold.`, "too_large");
    const chunks: Uint8Array[] = [];
    let total = 0;
    const entry: ArchiveEntry = { name: file.name, bytes: new Uint8Array(0) };
    entries.push(entry);
    file.ondata = (error, chunk, final) => {
      if (error) throw error instanceof ReportRefusedError ? error : new ReportRefusedError(`The zip entry "${file.name}" is damaged (${error.message}).`);
      total += chunk.length;
      budget.spend(chunk.length);
      chunks.push(chunk);
      if (final) entry.bytes = concat(chunks, total);
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
    for (let i = 0; i < bytes.length; i += CHUNK) unzip.push(bytes.subarray(i, i + CHUNK), i + CHUNK >= bytes.length);
  } catch (error) {
    if (error instanceof ReportRefusedError) throw error;
    throw new ReportRefusedError(`The zip archive is damaged (${(error as Error).message}).`);
  }
  const complete = entries.filter((e) => e.bytes.length > 0);
  if (complete.length === 0) throw new ReportRefusedError("The zip archive holds no readable file.");
  return complete;
}
