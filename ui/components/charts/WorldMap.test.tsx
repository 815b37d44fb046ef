import { describe, expect, test } from "bun:test";
import { fireEvent, screen, within } from "@testing-library/react";
import { cleanUpAfterEach, renderWithProviders } from "../../../tests/support/ui";
import { EMPTY_LAND, WorldMap } from "./WorldMap";

cleanUpAfterEach();

const shapes = (container: HTMLElement) => [...container.querySelectorAll<SVGPathElement>("path[data-country]")];
const shape = (container: HTMLElement, code: string) => container.querySelector<SVGPathElement>(`path[data-country="${code}"]`)!;

describe("WorldMap", () => {
  test("every country shape carries its ISO 3166-1 alpha-2 code", () => {
    const { container } = renderWithProviders(<WorldMap counts={{}} />);
    const codes = shapes(container).map((p) => p.dataset.country!);
    expect(codes.length).toBeGreaterThan(170);
    for (const code of codes) expect(code).toMatch(/^[A-Z]{2}$/);
    for (const code of ["US", "DE", "BR", "CN", "IN", "RU", "ZA", "AU", "FR", "GB", "XK"]) expect(codes).toContain(code);
    expect(codes).not.toContain("AQ");
  });

  test("shades the countries in counts, darker for more, and leaves the others as empty land", () => {
    const { container } = renderWithProviders(<WorldMap counts={{ DE: 5000, BR: 40, us: 3 }} />);
    const fill = (code: string) => shape(container, code).style.fill;
    expect(fill("FR")).toBe(EMPTY_LAND);
    for (const code of ["DE", "BR", "US"]) {
      expect(fill(code)).toContain("var(--color-error)");
      expect(shape(container, code).dataset.count).toBeTruthy();
    }
    const share = (code: string) => Number(/(\d+)%/.exec(fill(code))![1]);
    expect(share("DE")).toBeGreaterThan(share("BR"));
    expect(share("BR")).toBeGreaterThan(share("US"));
    expect(shape(container, "US").dataset.count).toBe("3");
  });

  test("countries with data are focusable and named with their count; a tooltip shows on focus and hover", () => {
    const { container } = renderWithProviders(<WorldMap counts={{ DE: 1234, BR: 1 }} />);
    const de = screen.getByRole("img", { name: "Germany: 1,234 failing messages" });
    expect(de.getAttribute("tabindex")).toBe("0");
    expect(screen.getByRole("img", { name: "Brazil: 1 failing message" })).toBeTruthy();
    expect(shape(container, "FR").getAttribute("tabindex")).toBeNull();
    fireEvent.focus(de);
    const tip = container.querySelector<HTMLElement>("[data-tooltip-country]")!;
    expect(tip.dataset.tooltipCountry).toBe("DE");
    expect(tip.textContent).toContain("Germany");
    expect(tip.textContent).toContain("1,234 failing messages");
    fireEvent.blur(de);
    expect(container.querySelector("[data-tooltip-country]")).toBeNull();
    fireEvent.mouseEnter(shape(container, "BR"));
    expect(container.querySelector<HTMLElement>("[data-tooltip-country]")!.textContent).toContain("1 failing message");
  });

  test("a legend shows the color scale from 1 to the largest count", () => {
    renderWithProviders(<WorldMap counts={{ DE: 5000, BR: 40 }} />);
    const legend = screen.getByLabelText("Color scale");
    expect(legend.textContent).toContain("None");
    expect(legend.textContent).toContain("500+");
    expect(within(legend).getByText("1–4")).toBeTruthy();
  });

  test("countries too small for the map are listed under it, and every count is in the table", () => {
    const { container } = renderWithProviders(<WorldMap counts={{ SG: 70, DE: 9 }} />);
    expect(container.querySelector('path[data-country="SG"]')).toBeNull();
    const off = container.querySelector<HTMLElement>('[data-off-map="SG"]')!;
    expect(off.textContent).toContain("Singapore");
    expect(off.textContent).toContain("70");
    const rows = within(screen.getByRole("table", { name: "Failing messages by country" })).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual(["Singapore70", "Germany9"]);
  });
});
