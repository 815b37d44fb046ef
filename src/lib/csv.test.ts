import { describe, expect, test } from "bun:test";
import { csvField, csvLine } from "./csv";

describe("csvField", () => {
  test("fields are quoted as RFC 4180 says", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("cr\r")).toBe('"cr\r"');
    expect(csvField(null)).toBe("");
    expect(csvField(undefined)).toBe("");
    expect(csvField("")).toBe("");
  });

  test("a text cell a spreadsheet would read as a formula gets a leading quote and is quoted", () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvField("+1")).toBe(`"'+1"`);
    expect(csvField("-2+3")).toBe(`"'-2+3"`);
    expect(csvField("@SUM(1)")).toBe(`"'@SUM(1)"`);
    expect(csvField("\t=1")).toBe(`"'\t=1"`);
    expect(csvField("\r=1")).toBe(`"'\r=1"`);
    // the characters are harmless past the first
    expect(csvField("a=b")).toBe("a=b");
    expect(csvField("example.com:s1=pass; x@y")).toBe("example.com:s1=pass; x@y");
  });

  test("numbers and booleans are written as they are, negative ones too", () => {
    expect(csvField(0)).toBe("0");
    expect(csvField(-1)).toBe("-1");
    expect(csvField(2.5)).toBe("2.5");
    expect(csvField(true)).toBe("true");
  });
});

test("csvLine joins the fields and ends the line with CRLF", () => {
  expect(csvLine(["a", 1, null, "=x", "b,c"])).toBe(`a,1,,"'=x","b,c"\r\n`);
});
