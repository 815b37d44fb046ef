import { describe, expect, test } from "bun:test";
import { fireEvent, screen, within } from "@testing-library/react";
import type { TrendSeries } from "../../../src/lib/trends";
import { cleanUpAfterEach, renderWithProviders } from "../../../tests/support/ui";
import { TrendChart } from "./TrendChart";

cleanUpAfterEach();

const series: TrendSeries = {
  from: "2026-03-01",
  to: "2026-03-07",
  days: [
    { date: "2026-03-01", messages: 120, passed: 100, failed: 20, quarantined: 5, rejected: 10, spfAligned: 90, dkimAligned: 95 },
    { date: "2026-03-02", messages: 0, passed: 0, failed: 0, quarantined: 0, rejected: 0, spfAligned: 0, dkimAligned: 0 },
    { date: "2026-03-03", messages: 2400, passed: 1800, failed: 600, quarantined: 300, rejected: 250, spfAligned: 1700, dkimAligned: 1750 },
    // 2026-03-04 to 06 missing: shown as zeros
    { date: "2026-03-07", messages: 8, passed: 8, failed: 0, quarantined: 0, rejected: 0, spfAligned: 8, dkimAligned: 8 },
  ],
};

const bars = (container: HTMLElement) => [...container.querySelectorAll<SVGGElement>("g[data-day]")];
const tooltip = (container: HTMLElement) => container.querySelector<HTMLElement>("[data-tooltip-date]");

describe("TrendChart", () => {
  test("one bar group per day of the range, oldest first, with the day's numbers", () => {
    const { container } = renderWithProviders(<TrendChart series={series} />);
    const groups = bars(container);
    expect(groups.map((g) => g.dataset.day)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06", "2026-03-07"]);
    expect(groups.map((g) => [g.dataset.messages, g.dataset.passed, g.dataset.failed])).toEqual([
      ["120", "100", "20"],
      ["0", "0", "0"],
      ["2400", "1800", "600"],
      ["0", "0", "0"],
      ["0", "0", "0"],
      ["0", "0", "0"],
      ["8", "8", "0"],
    ]);
    // the failed part of the busiest day is drawn taller than the quiet day's
    const height = (g: SVGGElement, cls: string) => Number(g.querySelector(`rect.${cls}`)!.getAttribute("height"));
    expect(height(groups[2]!, "fill-error")).toBeGreaterThan(height(groups[0]!, "fill-error"));
    expect(height(groups[6]!, "fill-error")).toBe(0);
  });

  test("the accessible table holds every day's exact numbers and pass rate", () => {
    renderWithProviders(<TrendChart series={series} />);
    const table = screen.getByRole("table", { name: "Message volume and DMARC pass rate" });
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(7);
    const cells = (r: HTMLElement) => within(r).getAllByRole("cell").map((c) => c.textContent);
    expect(within(rows[2]!).getByRole("rowheader").textContent).toBe("Tue 3 Mar 2026");
    expect(cells(rows[2]!)).toEqual(["2,400", "1,800", "600", "75%", "300", "250", "1,700", "1,750"]);
    expect(cells(rows[1]!)).toEqual(["0", "0", "0", "no messages", "0", "0", "0", "0"]);
    expect(cells(rows[0]!)[3]).toBe("83.3%");
  });

  test("the chart sums the range up in its label", () => {
    renderWithProviders(<TrendChart series={series} />);
    const img = screen.getByRole("img", { name: /2,528 messages, 1,908 passed, 620 failed, pass rate 75.5%/ });
    expect(img.getAttribute("aria-label")).toContain("Sun 1 Mar 2026 to Sat 7 Mar 2026");
  });

  test("hovering a day shows a tooltip with its exact numbers", () => {
    const { container } = renderWithProviders(<TrendChart series={series} />);
    expect(tooltip(container)).toBeNull();
    fireEvent.mouseEnter(bars(container)[2]!);
    const tip = tooltip(container)!;
    expect(tip.dataset.tooltipDate).toBe("2026-03-03");
    const text = tip.textContent!;
    for (const part of ["Tue 3 Mar 2026", "Messages2,400", "Passed1,800", "Failed600", "Pass rate75%", "Quarantined300", "Rejected250", "SPF aligned1,700", "DKIM aligned1,750"]) expect(text).toContain(part);
  });

  test("the keyboard walks the days: arrows, Home and End", () => {
    const { container } = renderWithProviders(<TrendChart series={series} />);
    const chart = screen.getByRole("img", { name: /Messages per day/ });
    expect(chart.getAttribute("tabindex")).toBe("0");
    fireEvent.keyDown(chart, { key: "ArrowRight" });
    expect(tooltip(container)!.dataset.tooltipDate).toBe("2026-03-01");
    fireEvent.keyDown(chart, { key: "ArrowRight" });
    fireEvent.keyDown(chart, { key: "ArrowRight" });
    expect(tooltip(container)!.dataset.tooltipDate).toBe("2026-03-03");
    expect(screen.getByText(/Tue 3 Mar 2026: 2,400 messages, 1,800 passed, 600 failed, pass rate 75%/)).toBeTruthy();
    fireEvent.keyDown(chart, { key: "End" });
    expect(tooltip(container)!.dataset.tooltipDate).toBe("2026-03-07");
    fireEvent.keyDown(chart, { key: "ArrowRight" });
    expect(tooltip(container)!.dataset.tooltipDate).toBe("2026-03-07");
    fireEvent.keyDown(chart, { key: "Home" });
    expect(tooltip(container)!.dataset.tooltipDate).toBe("2026-03-01");
    fireEvent.blur(chart);
    expect(tooltip(container)).toBeNull();
  });

  test("all-zero days: an empty state that says how to get reports flowing", () => {
    const { container } = renderWithProviders(<TrendChart series={{ from: "2026-03-01", to: "2026-03-30", days: [] }} />);
    expect(screen.getByText("No reports in this period")).toBeTruthy();
    expect(screen.getByText(/publish the report address shown in/)).toBeTruthy();
    expect(screen.getByRole("link", { name: "Settings" }).getAttribute("href")).toBe("/app/settings");
    expect(bars(container)).toHaveLength(0);
    expect(screen.queryByRole("table")).toBeNull();
  });

  test("a 90-day range draws 90 groups and labels only some dates", () => {
    const { container } = renderWithProviders(<TrendChart series={{ from: "2026-01-01", to: "2026-03-31", days: [{ date: "2026-02-10", messages: 5, passed: 4, failed: 1, quarantined: 0, rejected: 0, spfAligned: 4, dkimAligned: 4 }] }} />);
    expect(bars(container)).toHaveLength(90);
    const labels = container.querySelectorAll("g[data-day] text");
    expect(labels.length).toBeGreaterThan(3);
    expect(labels.length).toBeLessThan(90);
  });
});
