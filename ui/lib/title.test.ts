import { describe, expect, test } from "bun:test";
import { HOME_TITLE, titleFor } from "./title";

describe("document titles", () => {
  test("each screen of SPEC §2 names itself, below-screen pages included", () => {
    expect(titleFor("/")).toBe(HOME_TITLE);
    expect(titleFor("/app/dashboard")).toBe("Dashboard · dmarcwarden");
    expect(titleFor("/app/domains/4b382bbd")).toBe("Domain · dmarcwarden");
    expect(titleFor("/onboarding/healthcare")).toBe("Setup Guide for Healthcare Practices · dmarcwarden");
    expect(titleFor("/admin/dashboard")).toBe("Master Administrator Console · dmarcwarden");
  });

  test("any other path is the 404 screen's", () => {
    expect(titleFor("/app/nope")).toBe("404 Page Not Found · dmarcwarden");
    expect(titleFor("/onboarding/")).toBe("404 Page Not Found · dmarcwarden");
  });
});
