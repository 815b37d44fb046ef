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

export function parseAggregateXml(xml: string, limits: ReportLimits = DEFAULT_LIMITS): AggregateReport {
  const parser = new SaxesParser({ position: false });
  const stack: string[] = [];
  let text = "";
  let firstError: string | null = null;
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
    // Recoverable well-formedness slips (a stray "&", an undefined entity left as text)
    // are tolerated; a document that never closes its root is refused below.
    firstError ??= error.message;
  });
  parser.on("text", (t) => {
    text += t;
  });
  parser.on("cdata", (t) => {
    text += t;
  });
  parser.on("opentag", (tag) => {
    const name = localName(tag.name);
    const parent = stack[stack.length - 1];
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
    const name = localName(tag.name);
    stack.pop();
    const parent = stack[stack.length - 1];
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
        if (value) reporterErrors.push(value);
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
          if (result.domain || result.result !== "none") record.dkimResults.push(result);
          dkim = null;
        } else if (name === "spf" && spf) {
          const result: SpfAuthResult = { domain: keyword(spf.domain ?? ""), scope: orNull(keyword(spf.scope ?? "")), result: keyword(spf.result ?? "") || "none", humanResult: orNull(spf.human_result ?? "") };
          if (result.domain || result.result !== "none") record.spfResults.push(result);
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

  try {
    for (let i = 0; i < xml.length; i += CHUNK) parser.write(xml.slice(i, i + CHUNK));
    parser.close();
  } catch (error) {
    if (error instanceof ReportRefusedError) throw error;
    throw new ReportRefusedError(`The XML could not be read: ${(error as Error).message}`);
  }

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
}

/** DMARC pass for a record: aligned DKIM or aligned SPF passed (policy_evaluated). */
export function recordPassesDmarc(record: Pick<AggregateRecord, "dkimAligned" | "spfAligned">): boolean {
  return record.dkimAligned === "pass" || record.spfAligned === "pass";
}
