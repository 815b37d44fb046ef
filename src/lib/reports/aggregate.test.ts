import { describe, expect, test } from "bun:test";
import { fixtureText } from "../../../tests/support/report-fixtures";
import { AggregateXmlReader, parseAggregateXml, recordPassesDmarc } from "./aggregate";
import { aggregateXml } from "./generate";
import { DEFAULT_LIMITS, ReportRefusedError } from "./model";

describe("aggregate report parser", () => {
  test("reads an RFC 7489 report into the typed model", async () => {
    const r = await parseAggregateXml(fixtureText("rfc7489-google.xml"));
    expect(r).toMatchObject({ reporterOrg: "google.com", reportId: "1234", dmarcbis: false, version: null });
    expect(r.policy).toMatchObject({ domain: "example.com", p: "none", adkim: "r", pct: 100 });
    expect(r.dateBegin.toISOString()).toBe("2024-01-01T00:00:00.000Z");
    expect(r.records).toHaveLength(1);
    expect(r.records[0]).toMatchObject({ sourceIp: "209.85.220.41", count: 3, dkimAligned: "pass", spfAligned: "pass", reasons: [] });
    expect(r.records[0]!.dkimResults).toEqual([{ domain: "example.com", selector: "s1", result: "pass", humanResult: null }]);
  });

  test("reads DMARCbis: namespace, version, np, testing, discovery_method, generator, human_result, selector", async () => {
    const r = await parseAggregateXml(fixtureText("dmarcbis.xml"));
    expect(r).toMatchObject({ dmarcbis: true, version: "1.0", generator: "ProviderReports/3.2", reporterErrors: ["Some records could not be evaluated"], reporterContact: "https://provider.example/dmarc" });
    expect(r.policy).toMatchObject({ np: "reject", testing: "y", discoveryMethod: "treewalk", fo: "1", pct: null });
    const [v6, blocked] = r.records;
    expect(v6).toMatchObject({ sourceIp: "2001:db8::25", disposition: "pass", envelopeTo: "provider.example", envelopeFrom: "bounce.example.com" });
    expect(v6!.dkimResults[0]).toEqual({ domain: "example.com", selector: "sel2025", result: "pass", humanResult: "good signature" });
    expect(v6!.spfResults[0]).toMatchObject({ scope: "mfrom", result: "fail", humanResult: "not in SPF record" });
    expect(blocked!.reasons).toEqual([{ type: "local_policy", comment: "sender on local block list" }]);
  });

  test("reads an older draft with <identities> and missing optional elements", async () => {
    const r = await parseAggregateXml(fixtureText("draft-identities.xml"));
    expect(r.policy).toMatchObject({ domain: "mail.example.com", adkim: null, sp: null, pct: null });
    expect(r.records[0]!.headerFrom).toBe("mail.example.com");
    const min = await parseAggregateXml(fixtureText("minimal-missing-optional.xml"));
    expect(min.reporterEmail).toBeNull();
    expect(min.records[0]).toMatchObject({ dkimAligned: null, spfAligned: null, dkimResults: [], spfResults: [] });
  });

  test("normalizes namespace prefixes, upper-case values, empty reasons, several auth results and IPv4-mapped addresses", async () => {
    const r = await parseAggregateXml(fixtureText("uppercase-prefixed.xml"));
    expect(r.policy).toMatchObject({ domain: "example.com", p: "reject", adkim: "r" });
    const rec = r.records[0]!;
    expect(rec).toMatchObject({ sourceIp: "203.0.113.9", disposition: "none", dkimAligned: "pass", spfAligned: "fail", reasons: [], headerFrom: "example.com" });
    expect(rec.dkimResults.map((d) => d.result)).toEqual(["pass", "pass", "fail"]);
    expect(rec.spfResults.map((s) => s.scope)).toEqual(["mfrom", "helo"]);
  });

  test("a document read in pieces cut anywhere reads as it does whole: tags, entities, comments and CDATA across the cuts", async () => {
    const records = Array.from({ length: 400 }, (_, i) => ({
      sourceIp: `192.0.2.${i % 250}`, count: 1 + (i % 7), dkim: i % 3 ? "pass" : "fail", spf: "pass", envelopeFrom: "bounce.example.com",
      dkimAuth: [{ domain: "example.com", selector: `s${i % 4}`, result: "pass" }], spfAuth: [{ domain: "example.com", result: i % 5 ? "pass" : "softfail" }],
    }));
    const base = aggregateXml({ orgName: "Mail &amp; Co", reportId: "pieces", begin: new Date("2026-03-01T00:00:00Z"), end: new Date("2026-03-01T23:59:59Z"), domain: "example.com", records });
    // a comment with tags in it and a CDATA section with ">" in it, both longer than a piece's start
    const comment = `<!-- ${"<b>x</b> -> ".repeat(3000)} -->`;
    const xml = base.replace("<record>", `${comment}<record><![CDATA[ a > b ]]>`);
    const whole = await parseAggregateXml(xml);
    const inPieces = (cuts: number[]) => {
      const reader = new AggregateXmlReader();
      let at = 0;
      for (const cut of [...cuts, xml.length]) {
        reader.write(xml.slice(at, cut));
        at = cut;
      }
      return reader.finish();
    };
    const start = xml.indexOf("<!--");
    // cut just inside the long comment (what follows is one long piece with many tags in it), inside tags, in text
    for (const cuts of [[start + 2], [start + 4], [start + 10, start + 20_000], [xml.indexOf("<record>") + 3], [100, 5_000, 9_000, 40_000], [xml.indexOf("CDATA") + 2]]) {
      expect(inPieces(cuts)).toEqual(whole);
    }
    // a long comment of many short tags, cut at its start: read, not refused (no piece is read tag by tag)
    const dense = base.replace("<record>", `<!--${"<>".repeat(30_000)}--><record>`);
    const cut = dense.indexOf("<!--") + 4;
    const reader = new AggregateXmlReader();
    reader.write(dense.slice(0, cut));
    reader.write(dense.slice(cut));
    expect(reader.finish()).toEqual(await parseAggregateXml(base));
  });

  test("DMARC pass means aligned DKIM or aligned SPF", () => {
    expect(recordPassesDmarc({ dkimAligned: "pass", spfAligned: "fail" })).toBe(true);
    expect(recordPassesDmarc({ dkimAligned: "fail", spfAligned: "pass" })).toBe(true);
    expect(recordPassesDmarc({ dkimAligned: "fail", spfAligned: null })).toBe(false);
  });

  test.each([
    ["doctype-entities.xml", /DOCTYPE/],
    ["external-entity.xml", /DOCTYPE/],
    ["truncated.xml", /incomplete or malformed/],
    ["not-a-report.xml", /not a DMARC aggregate report/],
    ["missing-report-id.xml", /no <report_id>/],
  ])("refuses %s with a reason", async (name, reason) => {
    await expect(parseAggregateXml(fixtureText(name))).rejects.toThrow(reason);
  });

  test("never expands entities: an undefined entity stays as written, predefined ones decode", async () => {
    const xml = fixtureText("rfc7489-google.xml").replace("<org_name>google.com</org_name>", "<org_name>a &unknown; b &amp; c</org_name>");
    expect((await parseAggregateXml(xml)).reporterOrg).toBe("a &unknown; b & c");
  });

  test("parses a report with tens of thousands of records", async () => {
    const records = Array.from({ length: 30_000 }, (_, i) => ({ sourceIp: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, count: 1 + (i % 5) }));
    const r = await parseAggregateXml(aggregateXml({ orgName: "big.example", reportId: "big", begin: new Date(0), end: new Date(86_400_000), domain: "example.com", records }));
    expect(r.records).toHaveLength(30_000);
    expect(r.records[29_999]!.sourceIp).toBe("10.0.117.47");
  });

  test("refuses more records than the limit as too large", async () => {
    const xml = aggregateXml({ orgName: "x", reportId: "x", begin: new Date(0), end: new Date(1000), domain: "example.com", records: [{ sourceIp: "192.0.2.1", count: 1 }, { sourceIp: "192.0.2.2", count: 1 }] });
    try {
      await parseAggregateXml(xml, { ...DEFAULT_LIMITS, maxRecords: 1 });
      throw new Error("not refused");
    } catch (error) {
      expect(error).toBeInstanceOf(ReportRefusedError);
      expect((error as ReportRefusedError).code).toBe("too_large");
    }
  });
});
