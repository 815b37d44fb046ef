import { describe, expect, test } from "bun:test";
import { DOMAIN_REQUIRED_MESSAGE, INVALID_DOMAIN_MESSAGE, normalizeDomainInput } from "./domain-name";

describe("normalizeDomainInput", () => {
  test.each([
    ["example.com", "example.com"],
    ["  Example.COM  ", "example.com"],
    ["mail.sub-domain.example.co.uk", "mail.sub-domain.example.co.uk"],
    ["x1.io", "x1.io"],
  ])("accepts %p as %p", (input, domain) => {
    expect(normalizeDomainInput(input)).toEqual({ ok: true, domain });
  });

  test.each(["", "   ", undefined, null, 42])("empty input %p is Domain Required", (input) => {
    expect(normalizeDomainInput(input)).toEqual({ ok: false, error: "Domain Required", message: DOMAIN_REQUIRED_MESSAGE });
  });

  test.each([
    "localhost",
    "example",
    "example.c",
    "example.c0m",
    "exa mple.com",
    "-example.com",
    "example-.com",
    "ex_ample.com",
    "http://example.com",
    "example.com/",
    ".example.com",
    "example..com",
    `${"a".repeat(64)}.com`,
  ])("rejects %p as Invalid Domain", (input) => {
    expect(normalizeDomainInput(input)).toEqual({ ok: false, error: "Invalid Domain", message: INVALID_DOMAIN_MESSAGE });
  });
});
