import { describe, expect, test } from "bun:test";
import { render } from "@testing-library/react";
import { cleanUpAfterEach } from "../../tests/support/ui";
import { CountryLabel, countryName } from "./CountryLabel";

cleanUpAfterEach();

const REGIONAL_INDICATORS = /[\u{1F1E6}-\u{1F1FF}]/u;

describe("CountryLabel", () => {
  test("the alpha-2 code in a badge and the country's name, no emoji flag", () => {
    const { container } = render(<CountryLabel code="DE" />);
    expect(container.textContent).toBe("DEGermany");
    expect(container.querySelector(".badge")!.textContent).toBe("DE");
    expect(container.textContent).not.toMatch(REGIONAL_INDICATORS);
  });
  test("a given name wins; lower case codes are accepted", () => {
    const { container } = render(<CountryLabel code="br" name="Brasil" />);
    expect(container.textContent).toBe("BRBrasil");
  });
  test("no code: no badge, the name or Unknown", () => {
    expect(render(<CountryLabel code={null} name="Somewhere" />).container.textContent).toBe("Somewhere");
    expect(render(<CountryLabel code="??" />).container.textContent).toBe("Unknown");
  });
  test("countryName", () => {
    expect(countryName("US")).toBe("United States");
    expect(countryName("qq")).toBeUndefined();
    expect(countryName("")).toBeUndefined();
  });
});
