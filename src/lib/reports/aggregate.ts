/**
 * DMARC aggregate (RUA) report XML → AggregateReport, streamed through the tokenizer in ./xml.
 *
 * Accepts RFC 7489 Appendix C, the DMARCbis format (RFC 9990: namespace
 * urn:ietf:params:xml:ns:dmarc-2.0, <version>, np, testing, discovery_method, generator,
 * human_result, selector), older drafts (<identities> for <identifiers>), namespace prefixes,
 * missing optional elements, upper-case keywords, empty <reason>, several auth results,
 * IPv6 and IPv4-mapped sources. Refuses a DOCTYPE (no entity expansion is ever done) and
 * anything whose required metadata is missing, with a reason a user can act on.
 */
import { normalizeAddress } from "../net/address";
import { MAX_COUNT, outOfRange, quoted } from "./bounds";
import {
  DEFAULT_LIMITS,
  ReportRefusedError,
  type AggregateRecord,
  type AggregateReport,
  type DkimAuthResult,
  type PolicyOverrideReason,
  type PublishedPolicy,
  type ReportLimits,
  type SpfAuthResult,
  yieldToEventLoop,
} from "./model";
import { XmlTokenizer, type XmlSink } from "./xml";

export const DMARCBIS_NAMESPACE = "urn:ietf:params:xml:ns:dmarc-2.0";
const CHUNK = 256 * 1024;

/** An aggregate report without its records (see AggregateXmlReader.head). */
export type AggregateHead = Omit<AggregateReport, "records">;
/** <feedback> may sit inside at most two wrapper elements */
const MAX_WRAPPER_DEPTH = 3;
/** trimmed, lower-case; most values already are, and are returned as they are */
const keyword = (v: string) => {
  const n = v.length;
  if (n === 0) return v;
  if (v.charCodeAt(0) <= 32 || v.charCodeAt(n - 1) <= 32) return v.trim().toLowerCase();
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c > 127) return v.toLowerCase();
  }
  return v;
};
/** trimmed, with line ends as XML reads them */
const trimmed = (v: string) => {
  const n = v.length;
  if (n > 0 && (v.charCodeAt(0) <= 32 || v.charCodeAt(n - 1) <= 32)) v = v.trim();
  return v.indexOf("\r") < 0 ? v : v.replace(/\r\n?/g, "\n");
};
const orNull = (v: string | undefined) => (v === undefined || v === "" ? null : v);

/**
 * A source address in its one written form (IPv4-mapped IPv6 → IPv4, IPv6 compressed lower
 * case), or null when it is not a strict IPv4 or IPv6 address.
 */
export function normaliseIp(raw: string): string | null {
  return normalizeAddress(raw);
}

/** A record's <count>: a whole decimal number up to MAX_COUNT; an empty one counts none. Null when it is anything else. */
export function parseCount(raw: string): number | null {
  if (raw === "") return 0;
  if (!/^\d+$/.test(raw)) return null;
  const n = Number(raw);
  return n <= MAX_COUNT ? n : null;
}

/** Report dates are epoch seconds; a few reporters send ISO 8601 instead. */
export function parseReportDate(raw: string | undefined): Date | null {
  if (!raw) return null;
  const v = raw.trim();
  if (/^\d+(\.\d+)?$/.test(v)) {
    const seconds = Number(v);
    // some reporters send milliseconds
    const date = new Date(seconds > 1e11 ? seconds : seconds * 1000);
    return Number.isNaN(date.getTime()) ? null : date;
  }
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t);
}

function newRecord(): AggregateRecord {
  return {
    sourceIp: "",
    count: 0,
    disposition: "none",
    dkimAligned: null,
    spfAligned: null,
    reasons: [],
    headerFrom: null,
    envelopeFrom: null,
    envelopeTo: null,
    dkimResults: [],
    spfResults: [],
  };
}

/** Quick content check: does this text look like an aggregate report? */
export function looksLikeAggregateXml(head: string): boolean {
  return /<(\w+:)?feedback[\s>]/.test(head);
}

/** Refuses an XML document whose start shows it is not an aggregate report (a DOCTYPE is refused by the parser). */
export function assertAggregateHead(text: string): void {
  const head = text.slice(0, 4096);
  if (!looksLikeAggregateXml(head) && !/<!DOCTYPE/i.test(head)) throw new ReportRefusedError("This XML file is not a DMARC aggregate report (no <feedback> element).", "unknown_format");
}

/**
 * An aggregate report read incrementally: `write` text as it arrives (decompressed or
 * decoded), then `finish`. Memory stays bounded by the records kept, never by the input:
 * a token (text, attribute value, comment) over `maxXmlTokenChars`, nesting deeper than
 * `maxXmlDepth`, more than `maxItemsPerList` results in a record, or a syntax error ends it.
 *
 * `<feedback>` is usually the document's root; like parsedmarc, a report wrapped in another
 * element (an `<xs:schema>` some generators emit, a mail gateway's envelope) is read too, as
 * long as `<feedback>` sits within the first three levels. When several `<policy_published>`
 * are given, the first counts.
 */
export class AggregateXmlReader {
  private readonly tokenizer: XmlTokenizer;
  private readonly finishReport: () => AggregateReport;
  private readonly headOf: () => AggregateHead | string;
  private readonly records: AggregateRecord[];
  /** records handed out by takeRecords (they still count toward maxRecords) */
  private taken = 0;

  constructor(limits: ReportLimits = DEFAULT_LIMITS) {
    const listCap = (list: unknown[], what: string) => {
      if (list.length >= limits.maxItemsPerList) throw new ReportRefusedError(`The report has more than ${limits.maxItemsPerList} ${what}; it was refused.`, "too_large");
    };
    /** depth of <feedback> once opened; 0 before */
    let feedbackDepth = 0;
    let rootName = "";
    let rootClosed = false;
    let policies = 0;
    /** messages counted by the report's records so far */
    let counted = 0;

    const meta: Record<string, string> = {};
    const reporterErrors: string[] = [];
    const policy: Record<string, string> = {};
    let version: string | null = null;
    let dmarcbis = false;
    const records: AggregateRecord[] = [];
    this.records = records;
    const reader = this;
    let record: AggregateRecord | null = null;
    let reason: Partial<PolicyOverrideReason> | null = null;
    let dkim: Record<string, string> | null = null;
    let spf: Record<string, string> | null = null;
    const notAReport = () => new ReportRefusedError(`This XML is not a DMARC aggregate report (its root element is <${rootName}>, expected <feedback>).`);

    const sink: XmlSink = {
      open(name, depth, attributes) {
        if (feedbackDepth === 0) {
          if (depth === 1) rootName = tokenizer.rawRoot();
          if (rootClosed) return;
          if (name !== "feedback") {
            if (depth >= MAX_WRAPPER_DEPTH) throw notAReport();
            return;
          }
          feedbackDepth = depth;
          for (const [attr, value] of attributes ?? []) {
            if ((attr === "xmlns" || attr.startsWith("xmlns:")) && value === DMARCBIS_NAMESPACE) dmarcbis = true;
          }
          return;
        }
        const parent = tokenizer.names[depth - 2];
        switch (name) {
          case "record":
            if (depth === feedbackDepth + 1) record = newRecord();
            break;
          case "policy_published":
            if (depth === feedbackDepth + 1) policies++;
            break;
          case "reason":
            if (record && parent === "policy_evaluated") reason = {};
            break;
          case "dkim":
            if (record && parent === "auth_results") dkim = {};
            break;
          case "spf":
            if (record && parent === "auth_results") spf = {};
            break;
        }
      },
      close(name, depth, text) {
        if (feedbackDepth === 0) {
          if (depth === 1 && !rootClosed) throw notAReport();
          return;
        }
        if (depth <= feedbackDepth) {
          // </feedback>: what follows it is not part of the report
          if (depth === feedbackDepth) {
            rootClosed = true;
            feedbackDepth = 0;
          }
          return;
        }
        const parent = tokenizer.names[depth - 2];
        if (depth === feedbackDepth + 1) {
          if (name === "version") version = orNull(text.trim());
          else if (name === "record" && record) {
            if (reader.taken + records.length >= limits.maxRecords) throw new ReportRefusedError(`The report has more than ${limits.maxRecords.toLocaleString("en-US")} records, the most one report may hold on this server; it was refused and nothing of it was stored. The server's operator can raise the bound (--max-records-per-report).`, "too_large");
            const ip = normaliseIp(record.sourceIp);
            if (!ip) throw outOfRange(`Record ${reader.taken + records.length + 1} of the aggregate report ${record.sourceIp ? `has <source_ip> ${quoted(record.sourceIp)}, which is not an IPv4 or IPv6 address` : "has no <source_ip>"}`);
            record.sourceIp = ip;
            counted += record.count;
            if (counted > MAX_COUNT) throw outOfRange(`The aggregate report's <count> values add up to more than ${MAX_COUNT.toLocaleString("en-US")}, the most one report may count`);
            records.push(record);
            record = null;
          }
          return;
        }
        const value = trimmed(text);
        if (parent === "report_metadata") {
          if (name === "error") {
            if (value) {
              listCap(reporterErrors, "<error> entries in its <report_metadata>");
              reporterErrors.push(value);
            }
          } else meta[name] = value;
          return;
        }
        if (parent === "date_range") {
          meta[`date_${name}`] = value;
          return;
        }
        if (parent === "policy_published") {
          if (policies === 1) policy[name] = value;
          return;
        }
        if (!record) return;
        switch (parent) {
          case "row":
            // checked once the record ends, where its number is known
            if (name === "source_ip") record.sourceIp = value;
            else if (name === "count") {
              const n = parseCount(value);
              if (n === null) throw outOfRange(`Record ${reader.taken + records.length + 1} of the aggregate report has <count> ${quoted(value)}; a count is a whole number from 0 to ${MAX_COUNT.toLocaleString("en-US")}`);
              record.count = n;
            }
            return;
          case "policy_evaluated":
            if (name === "disposition") record.disposition = keyword(value) || "none";
            else if (name === "dkim") record.dkimAligned = orNull(keyword(value));
            else if (name === "spf") record.spfAligned = orNull(keyword(value));
            else if (name === "reason" && reason) {
              // an empty <reason/> (or one with an empty <type>) carries nothing: skip it
              if (reason.type) listCap(record.reasons, "<reason> entries in one record");
              if (reason.type) record.reasons.push({ type: reason.type, comment: reason.comment ?? null });
              reason = null;
            }
            return;
          case "reason":
            if (reason) {
              if (name === "type") reason.type = keyword(value);
              else if (name === "comment") reason.comment = orNull(value);
            }
            return;
          case "identifiers":
          case "identities":
            if (name === "header_from") record.headerFrom = orNull(keyword(value));
            else if (name === "envelope_from") record.envelopeFrom = orNull(keyword(value));
            else if (name === "envelope_to") record.envelopeTo = orNull(keyword(value));
            return;
          case "auth_results":
            if (name === "dkim" && dkim) {
              const result: DkimAuthResult = { domain: keyword(dkim.domain ?? ""), selector: orNull(dkim.selector ?? ""), result: keyword(dkim.result ?? "") || "none", humanResult: orNull(dkim.human_result ?? "") };
              if (result.domain || result.result !== "none") {
                listCap(record.dkimResults, "DKIM results in one record");
                record.dkimResults.push(result);
              }
              dkim = null;
            } else if (name === "spf" && spf) {
              const result: SpfAuthResult = { domain: keyword(spf.domain ?? ""), scope: orNull(keyword(spf.scope ?? "")), result: keyword(spf.result ?? "") || "none", humanResult: orNull(spf.human_result ?? "") };
              if (result.domain || result.result !== "none") {
                listCap(record.spfResults, "SPF results in one record");
                record.spfResults.push(result);
              }
              spf = null;
            }
            return;
          case "dkim":
            if (dkim) dkim[name] = value;
            return;
          case "spf":
            if (spf) spf[name] = value;
            return;
        }
      },
    };
    const tokenizer = new XmlTokenizer(sink, { maxTokenChars: limits.maxXmlTokenChars, maxDepth: limits.maxXmlDepth });
    this.tokenizer = tokenizer;

    this.finishReport = () => {
      const state = tokenizer.state;
      if (state === "empty") throw new ReportRefusedError("This file has no XML content.");
      if (!rootClosed) {
        if (state === "closed" || (feedbackDepth === 0 && rootName)) throw notAReport();
        throw new ReportRefusedError("The XML report is incomplete or malformed: it ends before </feedback>. Was the file cut short?");
      }
      const head = this.headOf();
      if (typeof head === "string") throw new ReportRefusedError(head);
      return { ...head, records };
    };

    /** the report without its records, or why it cannot be one (yet) */
    this.headOf = (): AggregateHead | string => {
      const reportId = meta.report_id;
      if (!reportId) return "The aggregate report has no <report_id> in its <report_metadata>.";
      const domain = keyword(policy.domain ?? "").replace(/\.$/, "");
      if (!domain) return "The aggregate report has no <domain> in its <policy_published>.";
      const dateBegin = parseReportDate(meta.date_begin);
      const dateEnd = parseReportDate(meta.date_end);
      if (!dateBegin || !dateEnd) return "The aggregate report has no readable <date_range> (begin and end).";
      // "<noreply@reporter.example>": the address inside the brackets
      const email = orNull((meta.email ?? "").replace(/^<([^<>]*)>$/, "$1").trim());
      const reporterOrg = meta.org_name || (email ? email.split("@").pop()! : "") || "Unknown reporter";

      // the domain's own record may hold any pct: one outside 0-100 meant nothing, and is not kept
      const pct = policy.pct && /^\d{1,3}$/.test(policy.pct) ? Number(policy.pct) : Number.NaN;
      const published: PublishedPolicy = {
        domain,
        adkim: orNull(keyword(policy.adkim ?? "")),
        aspf: orNull(keyword(policy.aspf ?? "")),
        p: orNull(keyword(policy.p ?? "")),
        sp: orNull(keyword(policy.sp ?? "")),
        np: orNull(keyword(policy.np ?? "")),
        pct: pct <= 100 ? pct : null,
        fo: orNull(policy.fo ?? ""),
        testing: orNull(keyword(policy.testing ?? "")),
        discoveryMethod: orNull(keyword(policy.discovery_method ?? "")),
      };

      return {
        kind: "aggregate",
        version,
        dmarcbis,
        reporterOrg,
        reporterEmail: email,
        reporterContact: orNull(meta.extra_contact_info ?? ""),
        reportId,
        generator: orNull(meta.generator ?? ""),
        reporterErrors,
        dateBegin,
        dateEnd,
        policy: published,
      };
    };
  }

  /**
   * The report without its records once its <report_metadata> and <policy_published> are read
   * (null before): a caller that stores records as they arrive writes the report's row first.
   */
  head(): AggregateHead | null {
    const head = this.headOf();
    return typeof head === "string" ? null : head;
  }

  /**
   * Hands over the records read so far and forgets them, so a caller that stores them as they
   * arrive holds one batch, never the report. They still count toward `maxRecords`; `finish`
   * then returns only the records not taken.
   */
  takeRecords(): AggregateRecord[] {
    const out = this.records.splice(0, this.records.length);
    this.taken += out.length;
    return out;
  }

  /** Feeds the next piece of the document; throws ReportRefusedError as soon as it is refused. */
  write(chunk: string): void {
    try {
      this.tokenizer.write(chunk);
    } catch (error) {
      throw asRefusal(error);
    }
  }

  /** The report, once the whole document was written. */
  finish(): AggregateReport {
    try {
      return this.finishReport();
    } catch (error) {
      throw asRefusal(error);
    }
  }
}

function asRefusal(error: unknown): ReportRefusedError {
  return error instanceof ReportRefusedError ? error : new ReportRefusedError(`The XML could not be read: ${(error as Error).message}`);
}

/** A whole aggregate report document, parsed in chunks with the event loop free between them. */
export async function parseAggregateXml(xml: string, limits: ReportLimits = DEFAULT_LIMITS): Promise<AggregateReport> {
  const reader = new AggregateXmlReader(limits);
  for (let i = 0; i < xml.length; i += CHUNK) {
    reader.write(xml.length <= CHUNK ? xml : xml.slice(i, i + CHUNK));
    if (i + CHUNK < xml.length) await yieldToEventLoop();
  }
  return reader.finish();
}

/** DMARC pass for a record: aligned DKIM or aligned SPF passed (policy_evaluated). */
export function recordPassesDmarc(record: Pick<AggregateRecord, "dkimAligned" | "spfAligned">): boolean {
  return record.dkimAligned === "pass" || record.spfAligned === "pass";
}
