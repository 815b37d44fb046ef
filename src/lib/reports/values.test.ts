/**
 * Counts, dates, addresses and control characters a report may hold: a report with one out of
 * range is refused whole, naming the field (nothing of it is stored); a failure report keeps
 * its failure without an unreadable optional Source-IP or Arrival-Date.
 */
import { describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { fixtureText, gzip, sampleAggregate, tlsReportJson } from "../../../tests/support/report-fixtures";
import { DATE_BOUNDS, MAX_COUNT } from "./bounds";
import { aggregateXml } from "./generate";
import { DEFAULT_LIMITS, ReportRefusedError, type AggregateReport, type FailureReport, type TlsReport } from "./model";
import { parseReportFile } from "./parse";

/** the server's clock in these tests */
const NOW = Date.UTC(2026, 5, 15, 12);
const limits = { ...DEFAULT_LIMITS, now: NOW };
const DAY = 86_400;

async function refusal(bytes: Uint8Array): Promise<ReportRefusedError> {
  try {
    await parseReportFile(bytes, limits);
  } catch (error) {
    if (error instanceof ReportRefusedError) return error;
    throw error;
  }
  throw new Error("the report was not refused");
}

const aggregate = async (xml: string) => (await parseReportFile(strToU8(xml), limits)).reports[0] as AggregateReport;

/** the sample report (records counting 8 and 2) */
const report = () => aggregateXml(sampleAggregate("example.com", { reportId: "v-1" }));
const withCount = (count: string) => report().replace("<count>2</count>", `<count>${count}</count>`);
const withPeriod = (begin: number | string, end: number | string) => report().replace(/<begin>\d+<\/begin>/, `<begin>${begin}</begin>`).replace(/<end>\d+<\/end>/, `<end>${end}</end>`);
const secs = (ms: number) => Math.floor(ms / 1000);

describe("aggregate record counts", () => {
  test.each([
    ["10^23", "100000000000000000000000"],
    ["-1", "-1"],
    ["one past the largest safe integer", "9007199254740992"],
    ["an exponent", "1e23"],
    ["a fraction", "1.5"],
    ["a word", "many"],
  ])("%s is refused, naming the record and the count", async (_, count) => {
    const error = await refusal(gzip(strToU8(withCount(count))));
    expect(error.message).toBe(
      `Record 2 of the aggregate report has <count> "${count}"; a count is a whole number from 0 to 9,007,199,254,740,991. The report was refused and nothing of it was stored. Ask the reporter for a corrected report.`,
    );
    expect(error.code).toBe("invalid");
  });

  test("counts that add up to more than the largest safe integer are refused", async () => {
    const error = await refusal(strToU8(withCount(String(MAX_COUNT - 7))));
    expect(error.message).toBe("The aggregate report's <count> values add up to more than 9,007,199,254,740,991, the most one report may count. The report was refused and nothing of it was stored. Ask the reporter for a corrected report.");
  });

  test("the largest count a report may add up to, 0, and an empty count are read", async () => {
    expect((await aggregate(withCount(String(MAX_COUNT - 8)))).records.map((r) => r.count)).toEqual([8, MAX_COUNT - 8]);
    expect((await aggregate(withCount("0"))).records.map((r) => r.count)).toEqual([8, 0]);
    expect((await aggregate(withCount(""))).records.map((r) => r.count)).toEqual([8, 0]);
  });
});

describe("aggregate report periods", () => {
  const begin = secs(NOW) - DAY;
  test.each([
    ["a begin in year 5138", 99_999_999_999, begin + DAY, "The aggregate report's <date_range> <begin> is 5138-11-16T09:46:39.000Z"],
    ["a begin before 2000", secs(DATE_BOUNDS.earliest) - 1, begin, "The aggregate report's <date_range> <begin> is 1999-12-31T23:59:59.000Z"],
    ["an end three days ahead of the server's clock", begin, secs(NOW) + 3 * DAY, "The aggregate report's <date_range> <end> is 2026-06-18T12:00:00.000Z"],
    ["an end too large to be a date", begin, "9".repeat(400), "The aggregate report has no readable <date_range> (begin and end)."],
  ])("%s is refused", async (_, from, to, start) => {
    const error = await refusal(strToU8(withPeriod(from, to)));
    expect(error.message.startsWith(start)).toBe(true);
  });

  test("the window is named in the refusal", async () => {
    expect((await refusal(strToU8(withPeriod(99_999_999_999, 99_999_999_999 + DAY)))).message).toContain("a report's dates lie between 2000-01-01 and two days after the server's date (2026-06-15)");
  });

  test("an end before the begin is refused", async () => {
    const error = await refusal(strToU8(withPeriod(begin, begin - 1)));
    expect(error.message).toBe(
      "The aggregate report's <date_range> <end> (2026-06-14T11:59:59.000Z) is before its <date_range> <begin> (2026-06-14T12:00:00.000Z). The report was refused and nothing of it was stored. Ask the reporter for a corrected report.",
    );
  });

  test("2000-01-01, an end a day ahead of the server's clock, and a one-instant period are read", async () => {
    const first = await aggregate(withPeriod(secs(DATE_BOUNDS.earliest), secs(NOW) + DAY));
    expect([first.dateBegin.toISOString(), first.dateEnd.toISOString()]).toEqual(["2000-01-01T00:00:00.000Z", "2026-06-16T12:00:00.000Z"]);
    expect((await aggregate(withPeriod(begin, begin))).dateEnd.getTime()).toBe(begin * 1000);
  });
});

describe("aggregate source addresses", () => {
  const withIp = (ip: string) => report().replace("<source_ip>198.51.100.7</source_ip>", `<source_ip>${ip}</source_ip>`);
  test.each(["999.1.1.1;DROP TABLE", "999.1.1.1", "192.0.2.010", "192.0.2", "2001:db8::1::2", "example.com", ""])("%p is refused", async (ip) => {
    const error = await refusal(gzip(strToU8(withIp(ip))));
    expect(error.message).toBe(
      `Record 2 of the aggregate report ${ip ? `has <source_ip> ${JSON.stringify(ip)}, which is not an IPv4 or IPv6 address` : "has no <source_ip>"}. The report was refused and nothing of it was stored. Ask the reporter for a corrected report.`,
    );
  });

  test("a refusal shows the address with its control characters escaped", async () => {
    const error = await refusal(strToU8(withIp("192.0.2.1\u007f\u0007")));
    expect(error.message).toStartWith('Record 2 of the aggregate report has <source_ip> "192.0.2.1\\u007f\\u0007", which is not');
  });

  test("a record without <source_ip> is refused", async () => {
    const error = await refusal(strToU8(report().replace("<source_ip>198.51.100.7</source_ip>", "")));
    expect(error.message).toStartWith("Record 2 of the aggregate report has no <source_ip>.");
  });

  test("addresses are stored in one written form", async () => {
    for (const [given, stored] of [
      ["::FFFF:192.0.2.1", "192.0.2.1"],
      ["2001:DB8:0:0::1", "2001:db8::1"],
      ["[2001:db8::2]", "2001:db8::2"],
      [" 192.0.2.3 ", "192.0.2.3"],
    ]) {
      expect((await aggregate(withIp(given!))).records[1]!.sourceIp).toBe(stored!);
    }
  });
});

describe("control characters in stored strings", () => {
  test.each([
    ["a NUL in <report_id>", (x: string) => x.replace("<report_id>v-1</report_id>", "<report_id>v-\u00001</report_id>"), "<report_id>", "0000"],
    ["an escape in <org_name>", (x: string) => x.replace("<org_name>google.com</org_name>", "<org_name>google\u001b[2J.com</org_name>"), "<org_name>", "001B"],
    ["a tab in <org_name>", (x: string) => x.replace("<org_name>google.com</org_name>", "<org_name>google\t.com</org_name>"), "<org_name>", "0009"],
    ["a DEL, as a character reference, in <selector>", (x: string) => x.replace("<selector>s1</selector>", "<selector>s1&#x7f;</selector>"), "<selector>", "007F"],
    ["a line end in <selector>", (x: string) => x.replace("<selector>s1</selector>", "<selector>s\n1</selector>"), "<selector>", "000A"],
    ["a NUL in <source_ip>", (x: string) => x.replace("<source_ip>198.51.100.7</source_ip>", "<source_ip>198.51.100.7\u0000</source_ip>"), null, null],
    ["a NUL in <header_from>", (x: string) => x.replace("<header_from>example.com</header_from>", "<header_from>example.com\u0000</header_from>"), "<header_from>", "0000"],
    ["a bell in a <reason> <comment>", (x: string) => x.replace("<disposition>none</disposition>", "<disposition>none</disposition><reason><type>other</type><comment>a\u0007b</comment></reason>"), "<reason> <comment>", "0007"],
  ])("%s refuses the report", async (_, edit, field, code) => {
    const error = await refusal(gzip(strToU8(edit(report()))));
    if (field) expect(error.message).toBe(`The aggregate report's ${field} holds a control character (U+${code}), which no report field may hold. The report was refused and nothing of it was stored. Ask the reporter for a corrected report.`);
    else expect(error.message).toStartWith('Record 2 of the aggregate report has <source_ip> "198.51.100.7\\u0000", which is not an IPv4 or IPv6 address.');
  });

  test("tabs and line ends in free text are kept", async () => {
    const xml = report().replace("<result>pass</result>", "<result>pass</result><human_result>line one\n\tline two</human_result>");
    expect((await aggregate(xml)).records[0]!.dkimResults[0]!.humanResult).toBe("line one\n\tline two");
  });
});

describe("the published policy's pct", () => {
  test.each([
    ["150", null],
    ["-5", null],
    ["100000000000000000000000", null],
    ["50", 50],
    ["0", 0],
  ])("<pct>%s</pct> is read as %p", async (pct, expected) => {
    expect((await aggregate(report().replace("<pct>100</pct>", `<pct>${pct}</pct>`))).policy.pct).toBe(expected);
  });
});

describe("SMTP TLS reports", () => {
  const doc = () => JSON.parse(new TextDecoder().decode(tlsReportJson("example.com", "t-1")));
  const tls = (edit: (d: any) => void) => {
    const d = doc();
    edit(d);
    return strToU8(JSON.stringify(d));
  };
  test.each([
    ['a session count of 10^23', (d: any) => (d.policies[0].summary["total-successful-session-count"] = 1e23), 'The SMTP TLS report\'s "total-successful-session-count" 1e+23 is not a whole number'],
    ["a session count of -1", (d: any) => (d.policies[0].summary["total-failure-session-count"] = -1), 'The SMTP TLS report\'s "total-failure-session-count" -1 is not a whole number'],
    ["a failed session count of 1.5", (d: any) => (d.policies[0]["failure-details"][0]["failed-session-count"] = 1.5), 'The SMTP TLS report\'s "failed-session-count" 1.5 is not a whole number'],
    ["counts adding up past the largest safe integer", (d: any) => (d.policies[0].summary["total-successful-session-count"] = MAX_COUNT), "The SMTP TLS report's session counts add up to more than 9,007,199,254,740,991"],
    ["a sending MTA that is not an address", (d: any) => (d.policies[0]["failure-details"][0]["sending-mta-ip"] = "999.1.1.1;DROP TABLE"), 'The SMTP TLS report\'s "sending-mta-ip" "999.1.1.1;DROP TABLE" is not an IPv4 or IPv6 address'],
    ["a start in year 5138", (d: any) => (d["date-range"]["start-datetime"] = "5138-11-16T09:46:39Z"), 'The SMTP TLS report\'s "start-datetime" is 5138-11-16T09:46:39.000Z'],
    ["an end before the start", (d: any) => (d["date-range"]["end-datetime"] = "2023-12-31T00:00:00Z"), 'The SMTP TLS report\'s "end-datetime" (2023-12-31T00:00:00.000Z) is before its "start-datetime"'],
    ["a NUL in the report id", (d: any) => (d["report-id"] = "t-\u00001"), 'The SMTP TLS report\'s "report-id" holds a control character (U+0000)'],
  ])("%s refuses the report", async (_, edit, start) => {
    const error = await refusal(tls(edit));
    expect(error.message).toStartWith(start);
    expect(error.message).toEndWith("The report was refused and nothing of it was stored. Ask the reporter for a corrected report.");
  });

  test("counts written as strings of digits, and IPv6 addresses, are read", async () => {
    const parsed = (await parseReportFile(tls((d) => {
      d.policies[0].summary["total-successful-session-count"] = "1200";
      d.policies[0]["failure-details"][0]["receiving-ip"] = "2001:DB8::10";
    }), limits)).reports[0] as TlsReport;
    expect(parsed.policies[0]!.successfulSessions).toBe(1200);
    expect(parsed.policies[0]!.failureDetails[0]!.receivingIp).toBe("2001:db8::10");
  });
});

describe("failure reports", () => {
  const arf = fixtureText("arf-auth-failure.eml");
  const failure = async (mail: string) => (await parseReportFile(strToU8(mail), limits)).reports[0] as FailureReport;

  test("a Source-IP that is not an address, and an Arrival-Date out of range, are left out; the failure is kept", async () => {
    const r = await failure(arf.replace("Source-IP: 192.0.2.1", "Source-IP: 999.1.1.1;DROP TABLE").replace("Arrival-Date: Tue, 2 Jan 2024 09:59:00 +0000", "Arrival-Date: Sat, 16 Nov 5138 09:46:39 +0000"));
    expect({ domain: r.domain, sourceIp: r.sourceIp, arrivalDate: r.arrivalDate }).toEqual({ domain: "example.com", sourceIp: null, arrivalDate: null });
  });

  test("a control character in a field refuses the report", async () => {
    const error = await refusal(strToU8(arf.replace("DKIM-Selector: s1", "DKIM-Selector: s\u00011")));
    expect(error.message).toStartWith("The failure report's DKIM-Selector holds a control character (U+0001)");
  });
});
