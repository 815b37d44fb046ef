/**
 * DMARC aggregate (RUA) report XML → AggregateReport, streamed with saxes.
 *
 * Accepts RFC 7489 Appendix C, the DMARCbis format (RFC 9990: namespace
 * urn:ietf:params:xml:ns:dmarc-2.0, <version>, np, testing, discovery_method, generator,
 * human_result, selector), older drafts (<identities> for <identifiers>), namespace prefixes,
 * missing optional elements, upper-case keywords, empty <reason>, several auth results,
 * IPv6 and IPv4-mapped sources. Refuses a DOCTYPE (no entity expansion is ever done) and
 * anything whose required metadata is missing, with a reason a user can act on.
 */
import { isIP } from "node:net";
import { SaxesParser } from "saxes";
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

export const DMARCBIS_NAMESPACE = "urn:ietf:params:xml:ns:dmarc-2.0";
const CHUNK = 256 * 1024;

const localName = (name: string) => {
  const i = name.indexOf(":");
  return i < 0 ? name : name.slice(i + 1);
};
const keyword = (v: string) => v.trim().toLowerCase();
const orNull = (v: string | undefined) => (v === undefined || v === "" ? null : v);

/** Normalises a source address: IPv4-mapped IPv6 → IPv4, IPv6 lower-cased. */
export function normaliseIp(raw: string): string {
  let ip = raw.trim().replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) ip = mapped[1]!;
  return isIP(ip) === 6 ? ip.toLowerCase() : ip;
}

/** Report dates are epoch seconds; a few reporters send ISO 8601 instead. */
export function parseReportDate(raw: string | undefined): Date | null {
  if (!raw) return null;
  const v = raw.trim();
  if (/^\d+(\.\d+)?$/.test(v)) {
    const seconds = Number(v);
    // some reporters send milliseconds
    return new Date((seconds > 1e11 ? seconds : seconds * 1000));
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
 * Recoverable slips in real reports: an unescaped "&" or an undefined entity, left as text.
 * Any other syntax error ends the parse: saxes would go on, and some states (a "<!" that is
 * not a comment, CDATA or DOCTYPE) then cost an error and a string append per character.
 */
const TOLERATED_ERROR = /entity/i;
const MAX_TOLERATED_ERRORS = 100;
/** text is handed to saxes in steps this size, so an over-long token is caught early */
const STEP = 16 * 1024;

const refusedSyntax = (message: string) => new ReportRefusedError(`The XML is malformed (${message.replace(/\.$/, "")}); it was refused. Ask the reporter for a well-formed report.`);
const tooLongToken = (cap: number, where: string) =>
  new ReportRefusedError(`The XML has a text, attribute value or comment ${where ? `in <${where}> ` : ""}longer than ${cap.toLocaleString("en-US")} characters, more than any report field needs; it was refused.`, "too_large");

/**
 * An aggregate report read incrementally: `write` text as it arrives (decompressed or
 * decoded), then `finish`. Memory stays bounded by the records kept, never by the input:
 * a token (text, attribute value, comment) over `maxXmlTokenChars`, nesting deeper than
 * `maxXmlDepth`, more than `maxItemsPerList` results in a record, or a syntax error ends it.
 */
export class AggregateXmlReader {
  private readonly parser = new SaxesParser({ position: false });
  private sinceEvent = 0;
  /** the element whose text or tag is being read, for refusals */
  private where = "";
  private readonly finishReport: () => AggregateReport;

  constructor(private readonly limits: ReportLimits = DEFAULT_LIMITS) {
    const parser = this.parser;
    const tokenCap = limits.maxXmlTokenChars;
    const listCap = (list: unknown[], what: string) => {
      if (list.length >= limits.maxItemsPerList) throw new ReportRefusedError(`The report has more than ${limits.maxItemsPerList} ${what}; it was refused.`, "too_large");
    };
    const seen = () => {
      this.sinceEvent = 0;
    };
    const stack: string[] = [];
    let text = "";
    let firstError: string | null = null;
    let toleratedErrors = 0;
    let closing = false;
    let rootClosed = false;
    let sawRoot = false;

    const meta: Record<string, string> = {};
    const reporterErrors: string[] = [];
    const policy: Record<string, string> = {};
    let version: string | null = null;
    let dmarcbis = false;
    const records: AggregateRecord[] = [];
    let record: AggregateRecord | null = null;
    let reason: Partial<PolicyOverrideReason> | null = null;
    let dkim: Record<string, string> | null = null;
    let spf: Record<string, string> | null = null;

    parser.on("doctype", () => {
      throw new ReportRefusedError("The XML declares a DOCTYPE, which is refused for safety (no DTDs or entities are processed).");
    });
    parser.on("error", (error) => {
      // at the end of input (an unclosed root) the reason is given below, with its advice
      if (!closing && (!TOLERATED_ERROR.test(error.message) || ++toleratedErrors > MAX_TOLERATED_ERRORS)) throw refusedSyntax(error.message);
      firstError ??= error.message;
    });
    const addText = (t: string) => {
      seen();
      if (text.length + t.length > tokenCap) throw tooLongToken(tokenCap, this.where);
      text += t;
    };
    parser.on("text", addText);
    parser.on("cdata", addText);
    const bounded = (value: string) => {
      seen();
      if (value.length > tokenCap) throw tooLongToken(tokenCap, this.where);
    };
    parser.on("comment", bounded);
    parser.on("processinginstruction", (pi) => bounded(pi.body));
    parser.on("opentagstart", (tag) => {
      seen();
      this.where = localName(tag.name);
    });
    parser.on("attribute", (attribute) => bounded(attribute.value));
    parser.on("opentag", (tag) => {
      seen();
      const name = localName(tag.name);
      const parent = stack[stack.length - 1];
      if (stack.length >= limits.maxXmlDepth) throw new ReportRefusedError(`The XML nests elements more than ${limits.maxXmlDepth} deep; a DMARC report needs 5. It was refused.`);
      stack.push(name);
      text = "";
      if (stack.length === 1) {
        if (name !== "feedback") throw new ReportRefusedError(`This XML is not a DMARC aggregate report (its root element is <${tag.name}>, expected <feedback>).`);
        sawRoot = true;
        for (const [attr, value] of Object.entries(tag.attributes)) {
          if ((attr === "xmlns" || attr.startsWith("xmlns:")) && String(value) === DMARCBIS_NAMESPACE) dmarcbis = true;
        }
        return;
      }
      switch (name) {
        case "record":
          if (parent === "feedback") record = newRecord();
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
    });
    parser.on("closetag", (tag) => {
      seen();
      const name = localName(tag.name);
      stack.pop();
      const parent = stack[stack.length - 1];
      this.where = parent ?? "";
      const value = text.trim();
      text = "";
      if (stack.length === 0) {
        rootClosed = true;
        return;
      }
      if (parent === "feedback") {
        if (name === "version") version = orNull(value);
        else if (name === "record" && record) {
          if (records.length >= limits.maxRecords) throw new ReportRefusedError(`The report has more than ${limits.maxRecords.toLocaleString("en-US")} records, the most one report may hold.`, "too_large");
          records.push(record);
          record = null;
        }
        return;
      }
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
        policy[name] = value;
        return;
      }
      if (!record) return;
      switch (parent) {
        case "row":
          if (name === "source_ip") record.sourceIp = normaliseIp(value);
          else if (name === "count") {
            const n = Number.parseInt(value, 10);
            record.count = Number.isFinite(n) && n > 0 ? n : 0;
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
    });

    this.finishReport = () => {
      closing = true;
      try {
        parser.close();
      } catch (error) {
        throw asRefusal(error);
      }
      return buildReport();
    };

    const buildReport = (): AggregateReport => {
      if (!sawRoot) throw new ReportRefusedError(`This file has no XML content${firstError ? ` (${firstError})` : ""}.`);
      if (!rootClosed) throw new ReportRefusedError(`The XML report is incomplete or malformed${firstError ? `: ${firstError}` : ""}. Was the file cut short?`);

      const reportId = meta.report_id;
      if (!reportId) throw new ReportRefusedError("The aggregate report has no <report_id> in its <report_metadata>.");
      const domain = keyword(policy.domain ?? "").replace(/\.$/, "");
      if (!domain) throw new ReportRefusedError("The aggregate report has no <domain> in its <policy_published>.");
      const dateBegin = parseReportDate(meta.date_begin);
      const dateEnd = parseReportDate(meta.date_end);
      if (!dateBegin || !dateEnd) throw new ReportRefusedError("The aggregate report has no readable <date_range> (begin and end).");
      const email = orNull(meta.email ?? "");
      const reporterOrg = meta.org_name || (email ? email.split("@").pop()! : "") || "Unknown reporter";

      const pct = policy.pct ? Number.parseInt(policy.pct, 10) : Number.NaN;
      const published: PublishedPolicy = {
        domain,
        adkim: orNull(keyword(policy.adkim ?? "")),
        aspf: orNull(keyword(policy.aspf ?? "")),
        p: orNull(keyword(policy.p ?? "")),
        sp: orNull(keyword(policy.sp ?? "")),
        np: orNull(keyword(policy.np ?? "")),
        pct: Number.isFinite(pct) ? pct : null,
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
        records,
      };
    };
  }

  /** Feeds the next piece of the document; throws ReportRefusedError as soon as it is refused. */
  write(chunk: string): void {
    try {
      for (let i = 0; i < chunk.length; i += STEP) {
        const step = chunk.length <= STEP ? chunk : chunk.slice(i, i + STEP);
        this.parser.write(step);
        this.sinceEvent += step.length;
        // a token saxes is still accumulating (text, attribute value, comment, a "<!…" run)
        if (this.sinceEvent > this.limits.maxXmlTokenChars + STEP) throw tooLongToken(this.limits.maxXmlTokenChars, this.where);
      }
    } catch (error) {
      throw asRefusal(error);
    }
  }

  /** The report, once the whole document was written. */
  finish(): AggregateReport {
    return this.finishReport();
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
