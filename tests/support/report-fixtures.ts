/**
 * Builds report files in every container shape, for tests: gzip with odd headers and
 * trailing bytes, zip with several entries, e-mail messages (base64, quoted-printable,
 * inline, several attachments), mbox, BOM, invalid UTF-8. Hand-written documents live in
 * tests/fixtures/reports/.
 */
import { deflateSync, gzipSync, strToU8, zipSync } from "fflate";
import { join } from "node:path";
import { aggregateXml, type GeneratedAggregate } from "../../src/lib/reports/generate";

export const FIXTURES = join(import.meta.dir, "../fixtures/reports");

export function fixture(name: string): Uint8Array {
  return new Uint8Array(require("node:fs").readFileSync(join(FIXTURES, name)));
}
export const fixtureText = (name: string) => new TextDecoder().decode(fixture(name));

let seq = 0;
/** A small, valid aggregate report for `domain` (unique report id unless given). */
export function sampleAggregate(domain = "example.com", overrides: Partial<GeneratedAggregate> = {}): GeneratedAggregate {
  return {
    orgName: "google.com",
    reportId: `test-${Date.now()}-${++seq}`,
    begin: new Date("2024-01-01T00:00:00Z"),
    end: new Date("2024-01-01T23:59:59Z"),
    domain,
    records: [
      { sourceIp: "209.85.220.41", count: 8, dkim: "pass", spf: "pass", dkimAuth: [{ domain, selector: "s1", result: "pass" }], spfAuth: [{ domain, result: "pass" }] },
      { sourceIp: "198.51.100.7", count: 2, dkim: "fail", spf: "fail", disposition: "none", spfAuth: [{ domain: "spoof.example", result: "fail" }] },
    ],
    ...overrides,
  };
}

export const xmlBytes = (report: GeneratedAggregate) => strToU8(aggregateXml(report));

/** gzip with FEXTRA, FNAME, FCOMMENT and FHCRC set, and junk after the stream. */
export function oddGzip(data: Uint8Array, trailing = strToU8("\n\0\0trailing junk")): Uint8Array {
  const header = [0x1f, 0x8b, 8, 0x04 | 0x08 | 0x10 | 0x02, 0, 0, 0, 0, 0, 255];
  const extra = [4, 0, 0x41, 0x42, 1, 0];
  const name = [...strToU8("report.xml"), 0];
  const comment = [...strToU8("made by an odd mailer"), 0];
  const hcrc = [0, 0];
  const body = deflateSync(data);
  const trailer = new Uint8Array(8); // CRC and size are not checked by the reader
  return concat(new Uint8Array([...header, ...extra, ...name, ...comment, ...hcrc]), body, trailer, trailing);
}

export const gzip = (data: Uint8Array) => gzipSync(data);
export const zip = (entries: Record<string, Uint8Array>) => zipSync(entries);

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const base64Lines = (data: Uint8Array) => Buffer.from(data).toString("base64").replace(/.{76}/g, "$&\r\n");

export interface MailAttachment {
  fileName: string;
  contentType: string;
  data: Uint8Array;
  encoding?: "base64" | "quoted-printable" | "7bit";
  inline?: boolean;
}

function quotedPrintable(text: string): string {
  return text
    .split("\n")
    .map((line) => line.replace(/[=\x80-\xff]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`).replace(/.{72}(?=.)/g, "$&=\r\n"))
    .join("\r\n");
}

/** A report mail with the given attachments (multipart/mixed), as a reporter would send it. */
export function reportMail(attachments: MailAttachment[], options: { subject?: string; from?: string; body?: string; messageId?: string } = {}): Uint8Array {
  const boundary = "----=_Part_123_456.789";
  const lines = [
    `From: ${options.from ?? "DMARC Aggregate Report <noreply-dmarc-support@google.com>"}`,
    "To: dmarc@example.com",
    `Subject: ${options.subject ?? "Report domain: example.com Submitter: google.com Report-ID: <1234>"}`,
    "Date: Tue, 02 Jan 2024 10:00:00 +0000",
    `Message-ID: <${options.messageId ?? `m${++seq}@google.com`}>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=us-ascii",
    "",
    options.body ?? "This is an aggregate report from google.com.",
  ];
  for (const a of attachments) {
    const encoding = a.encoding ?? "base64";
    lines.push(`--${boundary}`, `Content-Type: ${a.contentType}; name="${a.fileName}"`, `Content-Disposition: ${a.inline ? "inline" : "attachment"}; filename="${a.fileName}"`, `Content-Transfer-Encoding: ${encoding}`, "");
    lines.push(encoding === "base64" ? base64Lines(a.data) : encoding === "quoted-printable" ? quotedPrintable(new TextDecoder().decode(a.data)) : new TextDecoder().decode(a.data));
  }
  lines.push(`--${boundary}--`, "");
  return strToU8(lines.join("\r\n"));
}

/** A report sent in the body of a single-part message (quoted-printable). */
export function inlineReportMail(xml: string): Uint8Array {
  return strToU8(
    [
      "From: reports@inline.example",
      "To: dmarc@example.com",
      "Subject: DMARC aggregate report",
      "Content-Type: text/xml; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      quotedPrintable(xml),
      "",
    ].join("\r\n"),
  );
}

/** Messages joined as an mbox file ("From " separator lines). */
export function mbox(messages: Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const m of messages) parts.push(strToU8("From MAILER-DAEMON Tue Jan  2 10:00:00 2024\n"), m, strToU8("\n"));
  return concat(...parts);
}

export const withBom = (data: Uint8Array) => concat(new Uint8Array([0xef, 0xbb, 0xbf]), data);

/** Replaces the reporter name with bytes that are not valid UTF-8. */
export function withInvalidUtf8(xml: string): Uint8Array {
  const [before, after] = xml.split("google.com</org_name>") as [string, string];
  return concat(strToU8(before), new Uint8Array([0x67, 0xff, 0xfe, 0x6f]), strToU8("</org_name>"), strToU8(after));
}

export function tlsReportJson(domain = "example.com", reportId = `tls-${++seq}`): Uint8Array {
  const doc = JSON.parse(new TextDecoder().decode(fixture("tls-google.json")));
  doc["report-id"] = reportId;
  doc.policies[0].policy["policy-domain"] = domain;
  return strToU8(JSON.stringify(doc));
}
