/** A report that is malformed, oversized or full of over-long fields is refused at once, with a reason. */
import { describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { fixtureText, gzip, mbox, reportMail, sampleAggregate, tlsReportJson, xmlBytes, zip } from "../../../tests/support/report-fixtures";
import { aggregateXml } from "./generate";
import { DEFAULT_LIMITS, ReportRefusedError } from "./model";
import { parseReportFile } from "./parse";

async function refusal(bytes: Uint8Array): Promise<ReportRefusedError> {
  try {
    await parseReportFile(bytes);
  } catch (error) {
    if (error instanceof ReportRefusedError) return error;
    throw error;
  }
  throw new Error("the file was not refused");
}

const report = (domain = "example.com") => aggregateXml(sampleAggregate(domain, { reportId: "h-1" }));
/** the sample report with `inside` placed just inside <report_metadata> */
const withMetadata = (inside: string) => report().replace("<report_metadata>", `<report_metadata>${inside}`);

describe("malformed XML is refused at its first syntax error", () => {
  test('a "<!" that is not a comment, CDATA or DOCTYPE, even with a valid report after it', async () => {
    const error = await refusal(strToU8(withMetadata("<!bogus>")));
    expect(error.message).toBe("The XML is malformed (incorrect syntax); it was refused. Ask the reporter for a well-formed report.");
  });

  test('a "<!" followed by 4 MB of text, raw and as a 4 KB gzip, costs one error, not one per character', async () => {
    const bomb = strToU8(`<?xml version="1.0"?><feedback><!${"x".repeat(4 * 1024 * 1024)}`);
    const packed = gzip(bomb);
    expect(packed.length).toBeLessThan(8 * 1024);
    for (const bytes of [bomb, packed, zip({ "r.xml": bomb })]) expect((await refusal(bytes)).message).toMatch(/^The XML is malformed \(incorrect syntax\)/);
  });

  test("a stray & or an undefined entity is still read as text", async () => {
    const parsed = await parseReportFile(strToU8(report().replace("<org_name>google.com</org_name>", "<org_name>A & B &co;</org_name>")));
    expect(parsed.reports[0]!.reporterOrg).toBe("A & B &co;");
  });
});

describe("XML tokens, nesting and lists are bounded", () => {
  const big = "a".repeat(DEFAULT_LIMITS.maxXmlTokenChars + 1);
  test.each([
    ["element text", `<extra_contact_info>${big}</extra_contact_info>`, /text, attribute value or comment in <extra_contact_info> longer than 65,536 characters/],
    ["attribute value", `<note value="${big}"/>`, /text, attribute value or comment in <note> longer than 65,536 characters/],
    ["comment", `<!--${big}-->`, /text, attribute value or comment in <report_metadata> longer than 65,536 characters/],
    ["nesting", `${"<x>".repeat(40)}${"</x>".repeat(40)}`, /nests elements more than 32 deep/],
  ])("%s", async (_, inside, reason) => {
    const error = await refusal(strToU8(withMetadata(inside)));
    expect(error.message).toMatch(reason);
  });

  test("an unterminated 20 MB text inside a gzip is refused without reading it all", async () => {
    const error = await refusal(gzip(strToU8(`<feedback><report_metadata><org_name>${"n".repeat(20 * 1024 * 1024)}`)));
    expect(error.code).toBe("too_large");
    expect(error.message).toMatch(/in <org_name> longer than 65,536 characters/);
  });

  test("more than 100 DKIM results in one record", async () => {
    const dkim = "<dkim><domain>example.com</domain><result>pass</result></dkim>".repeat(101);
    const xml = report().replace("<auth_results>", `<auth_results>${dkim}`);
    expect((await refusal(strToU8(xml))).message).toBe("The report has more than 100 DKIM results in one record; it was refused.");
  });
});

describe("every stored field of every report kind is bounded", () => {
  const long = (n: number) => "x".repeat(n);
  test.each([
    ["<org_name>", (x: string) => x.replace("<org_name>google.com</org_name>", `<org_name>${long(1025)}</org_name>`)],
    ["<report_id>", (x: string) => x.replace(/<report_id>[^<]*<\/report_id>/, `<report_id>${long(1025)}</report_id>`)],
    ["<extra_contact_info>", (x: string) => x.replace("<report_metadata>", `<report_metadata><extra_contact_info>${long(2000)}</extra_contact_info>`)],
    ["<header_from>", (x: string) => x.replace(/<header_from>[^<]*<\/header_from>/, `<header_from>${long(300)}.com</header_from>`)],
    ["<dkim> <human_result>", (x: string) => x.replace("<auth_results>", `<auth_results><dkim><domain>example.com</domain><result>fail</result><human_result>${long(17_000)}</human_result></dkim>`)],
    ["<policy_published> <domain>", (x: string) => x.replace(/<policy_published>\s*<domain>[^<]*<\/domain>/, `<policy_published><domain>${long(300)}.example.com</domain>`)],
  ])("aggregate report %s", async (field, edit) => {
    const error = await refusal(gzip(strToU8(edit(report()))));
    expect(error.message).toContain(`The aggregate report's ${field} is `);
    expect(error.message).toContain("the most allowed is");
  });

  const arf = fixtureText("arf-auth-failure.eml");
  test.each([
    ["Authentication-Results", arf.replace(/^Authentication-Results: .*$/m, `Authentication-Results: ${long(20_000)}`)],
    ["DKIM-Selector", arf.replace("DKIM-Selector: s1", `DKIM-Selector: ${long(1100)}`)],
    ["original Subject", arf.replace("Subject: Urgent wire transfer", `Subject: ${long(17_000)}`)],
    ["Message-ID", arf.replace("Message-ID: <arf-1@reporter.example>", `Message-ID: <${long(1100)}@reporter.example>`)],
  ])("failure report %s", async (field, mail) => {
    const error = await refusal(strToU8(mail));
    expect(error.message).toContain(`The failure report's ${field} is `);
  });

  const tls = JSON.parse(new TextDecoder().decode(tlsReportJson("example.com", "t-1")));
  const editTls = (edit: (doc: any) => void) => {
    const doc = structuredClone(tls);
    edit(doc);
    return strToU8(JSON.stringify(doc));
  };
  test.each([
    ['"organization-name"', editTls((d) => (d["organization-name"] = long(1100)))],
    ['"report-id"', editTls((d) => (d["report-id"] = long(1100)))],
    ['"mx-host"', editTls((d) => (d.policies[0].policy["mx-host"] = [long(300)]))],
    ['"additional-information"', editTls((d) => (d.policies[0]["failure-details"][0]["additional-information"] = long(17_000)))],
  ])("SMTP TLS report %s", async (field, bytes) => {
    const error = await refusal(bytes);
    expect(error.message).toContain(`The SMTP TLS report's ${field} is `);
  });

  test("SMTP TLS JSON nested deeper than any report needs", async () => {
    const bytes = editTls((d) => (d.policies[0].extra = JSON.parse(`${"[".repeat(100)}${"]".repeat(100)}`)));
    expect((await refusal(bytes)).message).toMatch(/nests JSON more than 32 deep/);
  });

  test("reports at the bounds are accepted", async () => {
    const xml = report().replace("<org_name>google.com</org_name>", `<org_name>${long(1024)}</org_name>`);
    expect((await parseReportFile(strToU8(xml))).reports[0]!.reporterOrg).toHaveLength(1024);
  });
});

describe("mbox files", () => {
  test("every message of an mbox is read", async () => {
    const mails = [1, 2, 3].map((n) => reportMail([{ fileName: `${n}.xml.gz`, contentType: "application/gzip", data: gzip(xmlBytes(sampleAggregate("example.com", { reportId: `mbox-${n}` }))) }]));
    const parsed = await parseReportFile(mbox(mails));
    expect(parsed.reports.map((r) => r.reportId)).toEqual(["mbox-1", "mbox-2", "mbox-3"]);
  });
});
