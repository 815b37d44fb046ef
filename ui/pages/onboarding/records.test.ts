import { describe, expect, test } from "bun:test";
import { dmarcRecord, recordDomain, spfRecord } from "./records";

describe("wizard DNS values (SPEC §9)", () => {
  test("SPF authorizes a large email provider with a soft-fail ending; real estate adds a bulk sender", () => {
    expect(spfRecord("healthcare")).toBe("v=spf1 include:_spf.google.com ~all");
    expect(spfRecord("professional")).toBe("v=spf1 include:_spf.google.com ~all");
    expect(spfRecord("realestate")).toBe("v=spf1 include:_spf.google.com include:sendgrid.net ~all");
  });

  test("DMARC is policy none with the report address at the entered domain", () => {
    expect(dmarcRecord("healthcare", "smilesdental.com")).toBe("v=DMARC1; p=none; rua=mailto:dmarc@smilesdental.com");
    expect(dmarcRecord("realestate", " Oakhomes.com ")).toBe("v=DMARC1; p=none; rua=mailto:security@oakhomes.com");
    expect(dmarcRecord("professional", "https://whitfield-law.com/")).toBe("v=DMARC1; p=none; rua=mailto:dmarc@whitfield-law.com");
  });

  test("the sample domain stands in while no domain is entered", () => {
    expect(dmarcRecord("healthcare", "")).toBe("v=DMARC1; p=none; rua=mailto:dmarc@yourpractice.com");
    expect(dmarcRecord("realestate", "  ")).toBe("v=DMARC1; p=none; rua=mailto:security@youragency.com");
    expect(recordDomain("professional", "")).toBe("yourfirm.com");
  });
});
