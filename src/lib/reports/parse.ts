/**
 * One file's bytes → the reports inside it. Content decides the format at every level:
 * a mail may carry a zip that holds gzip'd XML. Pure apart from CPU: no database, no DNS.
 */
import { createHash } from "node:crypto";
import type PostalMime from "postal-mime";
import { looksLikeAggregateXml, parseAggregateXml } from "./aggregate";
import { assertFieldBounds } from "./bounds";
import { Budget, detectContainer, gunzipStreamed, unzipStreamed, unzlibStreamed, type ChunkConsumer } from "./container";
import { parseFailureReport } from "./failure";
import { splitMbox } from "./mbox";
import { DEFAULT_LIMITS, MB, ReportRefusedError, yieldToEventLoop, type ParsedReport, type ReportLimits } from "./model";
import { StreamedDocument } from "./streamed";
import { decodeText } from "./text";
import { looksLikeTlsJson, parseTlsReport } from "./tls";

export interface ParsedFile {
  reports: ParsedReport[];
  /** things repaired or skipped on the way, for logs */
  notes: string[];
}

const MAX_DEPTH = 5;
/** bytes of an uncompressed XML file handed to the parser between turns of the event loop */
const XML_STEP = 256 * 1024;

interface Context {
  limits: ReportLimits;
  budget: Budget;
  out: ParsedReport[];
  notes: string[];
}

export async function parseReportFile(bytes: Uint8Array, limits: ReportLimits = DEFAULT_LIMITS): Promise<ParsedFile> {
  if (bytes.length === 0) throw new ReportRefusedError("The file is empty.", "empty");
  if (bytes.length > limits.maxInputBytes) throw new ReportRefusedError(`The file is ${MB(bytes.length)}; the most one report file may be is ${MB(limits.maxInputBytes)}.`, "too_large");
  const ctx: Context = { limits, budget: new Budget(limits, bytes.length), out: [], notes: [] };
  await parseDocument(bytes, ctx, 0);
  if (ctx.out.length === 0) throw new ReportRefusedError("No DMARC or SMTP TLS report was found in this file.", "unknown_format");
  return { reports: ctx.out, notes: ctx.notes };
}

function push(ctx: Context, report: ParsedReport) {
  if (ctx.out.length >= ctx.limits.maxReportsPerFile) throw new ReportRefusedError(`The file holds more than ${ctx.limits.maxReportsPerFile} reports, the most one file may hold.`, "too_large");
  assertFieldBounds(report, ctx.limits.now);
  ctx.out.push(report);
}

/** Runs a streamed decompression into a new document, then parses what it held. */
async function parseStreamed(decompress: (consume: ChunkConsumer) => Promise<unknown>, ctx: Context, depth: number): Promise<void> {
  const document = new StreamedDocument(ctx.limits);
  await decompress(document.push);
  await finishDocument(document, ctx, depth + 1);
}

async function finishDocument(document: StreamedDocument, ctx: Context, depth: number): Promise<void> {
  const result = document.result();
  if ("bytes" in result) return parseDocument(result.bytes, ctx, depth);
  if (result.repaired) ctx.notes.push("invalid UTF-8 bytes were replaced");
  push(ctx, result.report);
}

async function parseDocument(bytes: Uint8Array, ctx: Context, depth: number): Promise<void> {
  if (depth > MAX_DEPTH) throw new ReportRefusedError("The file nests archives too deeply to be a report.");
  switch (detectContainer(bytes)) {
    case "gzip":
      return parseStreamed((consume) => gunzipStreamed(bytes, ctx.budget, consume), ctx, depth);
    case "zlib":
      return parseStreamed((consume) => unzlibStreamed(bytes, ctx.budget, consume), ctx, depth);
    case "zip": {
      const entries: StreamedDocument[] = [];
      await unzipStreamed(bytes, ctx.budget, ctx.limits.maxReportsPerFile, () => {
        const entry = new StreamedDocument(ctx.limits);
        entries.push(entry);
        return entry.push;
      });
      for (const entry of entries) await finishDocument(entry, ctx, depth + 1);
      return;
    }
    case "xml": {
      // read like a decompressed stream: refused at the first bad byte, with turns for others
      const document = new StreamedDocument(ctx.limits);
      for (let i = 0; i < bytes.length; i += XML_STEP) {
        const last = i + XML_STEP >= bytes.length;
        document.push(bytes.subarray(i, i + XML_STEP), last);
        if (!last) await yieldToEventLoop();
      }
      const result = document.result();
      if ("bytes" in result) throw new ReportRefusedError("This XML file is not a DMARC aggregate report.", "unknown_format");
      if (result.repaired) ctx.notes.push("invalid UTF-8 bytes were replaced");
      push(ctx, result.report);
      return;
    }
    case "json": {
      if (bytes.length > ctx.limits.maxTlsJsonChars) throw new ReportRefusedError(`The JSON document is ${MB(bytes.length)}; an SMTP TLS report may be at most ${MB(ctx.limits.maxTlsJsonChars)}.`, "too_large");
      const { text } = decodeText(bytes);
      if (!looksLikeTlsJson(text.slice(0, 4096))) throw new ReportRefusedError("This JSON file is not an SMTP TLS report (RFC 8460).", "unknown_format");
      push(ctx, parseTlsReport(text, ctx.limits));
      return;
    }
    case "mail": {
      const messages = splitMbox(bytes);
      if (!messages) return parseMail(bytes, ctx, depth);
      // an mbox: every message is read; one without a report in it is skipped
      for (const [i, message] of messages.entries()) {
        try {
          await parseMail(message, ctx, depth);
        } catch (error) {
          if (!(error instanceof ReportRefusedError && error.code === "unknown_format")) throw error;
          ctx.notes.push(`skipped message ${i + 1} of the mbox (no report in it)`);
        }
      }
      return;
    }
    default:
      throw new ReportRefusedError("This file is not a report: expected DMARC aggregate XML, an SMTP TLS JSON report, gzip, zip or an e-mail message.", "unknown_format");
  }
}

/** Drops an mbox "From " envelope line, if any. */
function stripMboxLine(bytes: Uint8Array): Uint8Array {
  if (!(bytes[0] === 0x46 && bytes[1] === 0x72 && bytes[2] === 0x6f && bytes[3] === 0x6d && bytes[4] === 0x20)) return bytes;
  const nl = bytes.indexOf(0x0a);
  return nl < 0 ? bytes : bytes.subarray(nl + 1);
}

const toBytes = (content: ArrayBuffer | Uint8Array | string): Uint8Array =>
  typeof content === "string" ? new TextEncoder().encode(content) : content instanceof Uint8Array ? content : new Uint8Array(content);

async function parseMail(raw: Uint8Array, ctx: Context, depth: number): Promise<void> {
  const bytes = stripMboxLine(raw);
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    // the MIME parser loads with the first mail message
    const Parser: typeof PostalMime = (await import("postal-mime")).default;
    email = await Parser.parse(bytes, { forceRfc822Attachments: true, maxNestingDepth: 20 });
  } catch (error) {
    throw new ReportRefusedError(`The e-mail message could not be read (${(error as Error).message}).`);
  }
  const before = ctx.out.length;
  let feedbackReport: string | null = null;
  let original: string | null = null;
  for (const attachment of email.attachments) {
    const content = toBytes(attachment.content);
    ctx.budget.spend(content.length);
    const type = attachment.mimeType.toLowerCase();
    if (type === "message/feedback-report") {
      feedbackReport = decodeText(content).text;
      continue;
    }
    if (type === "message/rfc822" || type === "text/rfc822-headers" || type === "message/rfc822-headers") {
      original ??= decodeText(content).text;
      continue;
    }
    try {
      await parseDocument(content, ctx, depth + 1);
    } catch (error) {
      // a logo or signature next to the report is fine; a broken report is not
      if (error instanceof ReportRefusedError && error.code === "unknown_format") {
        ctx.notes.push(`skipped attachment ${attachment.filename ?? type}`);
        continue;
      }
      throw error;
    }
  }
  // a report sent inline in the message body
  const text = email.text ?? "";
  if (ctx.out.length === before && looksLikeAggregateXml(text)) {
    const start = text.search(/<\?xml|<(\w+:)?feedback[\s>]/);
    push(ctx, await parseAggregateXml(text.slice(start), ctx.limits));
  } else if (ctx.out.length === before && /^\s*\{/.test(text) && looksLikeTlsJson(text)) {
    push(ctx, parseTlsReport(text, ctx.limits));
  }
  if (ctx.out.length > before) return;

  const html = email.html ? email.html.replace(/<br\s*\/?>/gi, "\n").replace(/<[^>]+>/g, " ") : "";
  if (!feedbackReport && !/dmarc|authentication|failure report|spf|dkim/i.test(`${email.subject ?? ""}\n${text || html}`)) {
    throw new ReportRefusedError("No report was found in this e-mail message: it has no aggregate, failure or TLS report in it.", "unknown_format");
  }
  push(
    ctx,
    parseFailureReport(
      {
        from: email.from?.address ?? null,
        subject: email.subject ?? null,
        messageId: email.messageId ?? null,
        date: email.date ? new Date(email.date) : null,
        text: text || html,
        feedbackReport,
        original,
        digest: createHash("sha256").update(bytes).digest("hex").slice(0, 32),
      },
      ctx.limits.now,
    ),
  );
}
