import { describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import {
  concat,
  fixture,
  fixtureText,
  gzip,
  inlineReportMail,
  mbox,
  oddGzip,
  reportMail,
  sampleAggregate,
  tlsReportJson,
  withBom,
  withInvalidUtf8,
  xmlBytes,
  zip,
} from "../../../tests/support/report-fixtures";
import { aggregateXml } from "./generate";
import { DEFAULT_LIMITS, ReportRefusedError, type AggregateReport } from "./model";
import { parseReportFile } from "./parse";

const xml = xmlBytes(sampleAggregate("example.com", { reportId: "r-1" }));

async function refusal(bytes: Uint8Array, limits = DEFAULT_LIMITS): Promise<ReportRefusedError> {
  try {
    await parseReportFile(bytes, limits);
  } catch (error) {
    if (error instanceof ReportRefusedError) return error;
    throw error;
  }
  throw new Error("the file was not refused");
}

const ids = async (bytes: Uint8Array) => (await parseReportFile(bytes)).reports.map((r) => `${r.kind}:${r.reportId}`);

describe("container detection by content", () => {
  test("raw XML, gzip, zlib and zip all give the same report", async () => {
    for (const bytes of [xml, gzip(xml), zip({ "report.xml": xml })]) expect(await ids(bytes)).toEqual(["aggregate:r-1"]);
  });

  test("gzip with odd header flags and trailing bytes", async () => {
    expect(await ids(oddGzip(xml))).toEqual(["aggregate:r-1"]);
  });

  test("zip with several entries, including gzip'd ones and a directory", async () => {
    const second = xmlBytes(sampleAggregate("example.com", { reportId: "r-2" }));
    const bytes = zip({ "a/report1.xml": xml, "a/report2.xml.gz": gzip(second) });
    expect((await ids(bytes)).sort()).toEqual(["aggregate:r-1", "aggregate:r-2"]);
  });

  test("byte-order mark and UTF-16 text", async () => {
    expect(await ids(withBom(xml))).toEqual(["aggregate:r-1"]);
    const utf16 = new Uint8Array(Buffer.from("\ufeff" + new TextDecoder().decode(xml), "utf16le"));
    expect(await ids(utf16)).toEqual(["aggregate:r-1"]);
  });

  test("invalid UTF-8 is repaired, not a crash", async () => {
    const parsed = await parseReportFile(withInvalidUtf8(new TextDecoder().decode(xml)));
    expect((parsed.reports[0] as AggregateReport).reporterOrg).toBe("g\ufffd\ufffdo");
    expect(parsed.notes).toContain("invalid UTF-8 bytes were replaced");
  });

  test("a file that is none of the formats is refused as unknown", async () => {
    const error = await refusal(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    expect(error.code).toBe("unknown_format");
    expect(error.message).toMatch(/not a report/);
    expect((await refusal(new Uint8Array())).code).toBe("empty");
  });
});

describe("e-mail messages", () => {
  test("a report attached as gzip (base64), zip, and plain XML (quoted-printable) in one message", async () => {
    const a = xmlBytes(sampleAggregate("example.com", { reportId: "m-1" }));
    const b = xmlBytes(sampleAggregate("example.com", { reportId: "m-2" }));
    const c = xmlBytes(sampleAggregate("example.com", { reportId: "m-3" }));
    const mail = reportMail([
      { fileName: "google.com!example.com!1!2.xml.gz", contentType: "application/gzip", data: gzip(a) },
      { fileName: "m2.zip", contentType: "application/zip", data: zip({ "m2.xml": b }) },
      { fileName: "m3.xml", contentType: "text/xml", data: c, encoding: "quoted-printable" },
      { fileName: "logo.png", contentType: "image/png", data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]) },
    ]);
    expect((await ids(mail)).sort()).toEqual(["aggregate:m-1", "aggregate:m-2", "aggregate:m-3"]);
  });

  test("a report inline in the message body", async () => {
    expect(await ids(inlineReportMail(new TextDecoder().decode(xml)))).toEqual(["aggregate:r-1"]);
  });

  test("an mbox-style message with a From_ line", async () => {
    const mail = reportMail([{ fileName: "r.xml.gz", contentType: "application/gzip", data: gzip(xml) }]);
    expect(await ids(mbox([mail]))).toEqual(["aggregate:r-1"]);
  });

  test("a message with a broken report attachment is refused, not half-read", async () => {
    const mail = reportMail([
      { fileName: "ok.xml", contentType: "text/xml", data: xml },
      { fileName: "bad.xml", contentType: "text/xml", data: fixture("truncated.xml") },
    ]);
    expect((await refusal(mail)).message).toMatch(/incomplete or malformed/);
  });

  test("a message with no report in it", async () => {
    const error = await refusal(fixture("newsletter.eml"));
    expect(error.code).toBe("unknown_format");
    expect(error.message).toMatch(/No report was found/);
  });
});

describe("failure (RUF) reports", () => {
  test("an ARF auth-failure report", async () => {
    const [report] = (await parseReportFile(fixture("arf-auth-failure.eml"))).reports;
    expect(report).toMatchObject({
      kind: "failure",
      feedbackType: "auth-failure",
      authFailure: "dmarc",
      domain: "example.com",
      sourceIp: "192.0.2.1",
      identityAlignment: "none",
      deliveryResult: "reject",
      dkimSelector: "s1",
      originalMailFrom: "bounce@example.com",
      originalSubject: "Urgent wire transfer",
      originalMessageId: "orig-1@example.com",
      reportId: "arf-1@reporter.example",
      plainText: false,
    });
    expect(report!.kind === "failure" && report!.arrivalDate?.toISOString()).toBe("2024-01-02T09:59:00.000Z");
    expect(report!.kind === "failure" && report!.authenticationResults).toContain("dmarc=fail");
  });

  test("an ARF report whose original message is attached as message/rfc822", async () => {
    const arf = fixtureText("arf-auth-failure.eml").replace("Content-Type: text/rfc822-headers", "Content-Type: message/rfc822").replace("Reported-Domain: example.com\n", "");
    const [report] = (await parseReportFile(strToU8(arf))).reports;
    expect(report).toMatchObject({ kind: "failure", domain: "example.com", originalFrom: "Boss <boss@example.com>" });
  });

  test("a plain-text failure notice without an ARF part, as best it allows", async () => {
    const [report] = (await parseReportFile(fixture("plain-failure-notice.eml"))).reports;
    expect(report).toMatchObject({ kind: "failure", plainText: true, domain: "example.com", sourceIp: "198.51.100.23", identityAlignment: "none", authFailure: "dmarc", reporterOrg: "isp.example" });
  });
});

describe("SMTP TLS reports (RFC 8460)", () => {
  test("plain JSON, gzip'd JSON, and attached to a mail", async () => {
    const json = tlsReportJson("example.com", "tls-1");
    const mail = reportMail([{ fileName: "google.com!example.com!1!2.json.gz", contentType: "application/tlsrpt+gzip", data: gzip(json) }], { subject: "Report Domain: example.com" });
    for (const bytes of [json, gzip(json), mail]) expect(await ids(bytes)).toEqual(["tls:tls-1"]);
    const [report] = (await parseReportFile(json)).reports;
    expect(report).toMatchObject({ kind: "tls", reporterOrg: "Google Inc.", contactInfo: "smtp-tls-reporting@google.com" });
    expect(report!.kind === "tls" && report!.policies[0]).toMatchObject({
      policyType: "sts",
      policyDomain: "example.com",
      mxHost: ["mx1.example.com"],
      successfulSessions: 1200,
      failedSessions: 3,
      failureDetails: [{ resultType: "certificate-expired", sendingMtaIp: "209.85.220.41", failedSessionCount: 3, failureReasonCode: "X509_V_ERR_CERT_HAS_EXPIRED" }],
    });
  });

  test.each([
    ['{"organization-name": "x", "report-id": "1"', /not valid JSON/],
    ['{"organization-name": "x", "date-range": {"start-datetime": "2024-01-01T00:00:00Z", "end-datetime": "2024-01-02T00:00:00Z"}, "policies": []}', /no "report-id"/],
    ['{"organization-name": "x", "report-id": "1", "date-range": {"start-datetime": "2024-01-01T00:00:00Z", "end-datetime": "2024-01-02T00:00:00Z"}, "policies": []}', /no "policies"/],
    ['{"hello": "world"}', /not an SMTP TLS report/],
  ])("refuses malformed TLS JSON %#", async (text, reason) => {
    expect((await refusal(strToU8(text))).message).toMatch(reason);
  });
});

describe("limits", () => {
  test("input size", async () => {
    const error = await refusal(xml, { ...DEFAULT_LIMITS, maxInputBytes: 100 });
    expect(error.code).toBe("too_large");
    expect(error.message).toMatch(/the most one report file may be/);
  });

  test("decompressed size", async () => {
    const error = await refusal(gzip(xml), { ...DEFAULT_LIMITS, maxDecompressedBytes: 500 });
    expect(error.code).toBe("too_large");
    expect(error.message).toMatch(/decompresses to more than/);
  });

  test("compression ratio (a gzip bomb is stopped early)", async () => {
    const bomb = gzip(new Uint8Array(20 * 1024 * 1024)); // 20 MB of zeros → ~20 kB
    const error = await refusal(bomb);
    expect(error.code).toBe("too_large");
    expect(error.message).toMatch(/compression bomb/);
  });

  test("a zip bomb inside a mail is stopped too", async () => {
    const mail = reportMail([{ fileName: "r.zip", contentType: "application/zip", data: zip({ "a.xml": new Uint8Array(12 * 1024 * 1024) }) }]);
    expect((await refusal(mail)).code).toBe("too_large");
  });

  test("damaged gzip is refused with a reason", async () => {
    const broken = gzip(xml).slice(0, 40);
    expect((await refusal(concat(broken))).message).toMatch(/damaged|truncated/);
  });

  test("a large generated report goes through gzip", async () => {
    const records = Array.from({ length: 20_000 }, (_, i) => ({ sourceIp: `192.0.${(i >> 8) & 255}.${i & 255}`, count: 2 }));
    const parsed = await parseReportFile(gzip(strToU8(aggregateXml({ orgName: "big", reportId: "big", begin: new Date("2024-01-01T00:00:00Z"), end: new Date("2024-01-02T00:00:00Z"), domain: "example.com", records }))));
    expect((parsed.reports[0] as AggregateReport).records).toHaveLength(20_000);
  });
});
