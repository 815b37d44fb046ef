import { describe, expect, test } from "bun:test";
import { clientNameKey, parseClientCsv } from "./client-csv";

describe("parseClientCsv", () => {
  test("numbers lines as in the file, skips blank lines and a header, normalizes domains", () => {
    expect(parseClientCsv("\uFEFFClient name, Domain\r\n\r\nAcme Dental, AcmeDental.COM \n")).toEqual([{ line: 3, ok: true, clientName: "Acme Dental", domain: "acmedental.com" }]);
  });

  test("a header is only recognized on the first non-blank line", () => {
    expect(parseClientCsv("Acme, acme.example\nclient, domain")[1]).toMatchObject({ line: 2, ok: false, error: "Please enter a valid domain name (e.g., example.com)" });
  });

  test("quoted names keep their commas and quotes", () => {
    expect(parseClientCsv('"Baker, Lane & ""Co""",baker.example')).toEqual([{ line: 1, ok: true, clientName: 'Baker, Lane & "Co"', domain: "baker.example" }]);
  });

  test("one clear error per bad line", () => {
    const rows = parseClientCsv(["only-one-cell", "a,b,c", "X, x.example", `${"n".repeat(101)}, n.example`, "Good Co,", "Good Co, not a domain"].join("\n"));
    expect(rows.map((r) => (r.ok ? null : r.error))).toEqual([
      "Expected 2 columns (client name, domain), found 1.",
      "Expected 2 columns (client name, domain), found 3.",
      "Organization name must be at least 2 characters",
      "Organization name must be at most 100 characters",
      "Please enter a domain name",
      "Please enter a valid domain name (e.g., example.com)",
    ]);
  });

  test("client names compare without case or extra spaces", () => {
    expect(clientNameKey("  Acme   DENTAL ")).toBe(clientNameKey("acme dental"));
  });
});
