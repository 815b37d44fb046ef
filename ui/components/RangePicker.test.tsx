import { describe, expect, test } from "bun:test";
import { fireEvent, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { cleanUpAfterEach, renderWithProviders } from "../../tests/support/ui";
import { rangeDates, RangePicker, type DayRange } from "./RangePicker";

cleanUpAfterEach();

const now = new Date("2026-03-10T12:00:00Z");

function Harness({ changes }: { changes: DayRange[] }) {
  const [value, setValue] = useState<DayRange>({ kind: "last", days: 30 });
  return (
    <>
      <RangePicker
        value={value}
        now={now}
        onChange={(r) => {
          changes.push(r);
          setValue(r);
        }}
      />
      <output>{JSON.stringify(rangeDates(value, now))}</output>
    </>
  );
}

const setDate = (label: string, value: string) => fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe("RangePicker", () => {
  test("the presets choose the last 7, 30 or 90 UTC days, today included", async () => {
    const changes: DayRange[] = [];
    renderWithProviders(<Harness changes={changes} />);
    expect(screen.getByRole("button", { name: "30 days" }).getAttribute("aria-pressed")).toBe("true");
    await userEvent.click(screen.getByRole("button", { name: "7 days" }));
    expect(changes).toEqual([{ kind: "last", days: 7 }]);
    expect(screen.getByRole("button", { name: "7 days" }).getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByRole("status").textContent).toBe(JSON.stringify({ from: "2026-03-04", to: "2026-03-10" }));
    await userEvent.click(screen.getByRole("button", { name: "90 days" }));
    expect(screen.getByRole("status").textContent).toBe(JSON.stringify({ from: "2025-12-11", to: "2026-03-10" }));
  });

  test("a custom range starts at the current one and applies when valid", async () => {
    const changes: DayRange[] = [];
    renderWithProviders(<Harness changes={changes} />);
    await userEvent.click(screen.getByRole("button", { name: "Custom" }));
    expect((screen.getByLabelText("From") as HTMLInputElement).value).toBe("2026-02-09");
    expect((screen.getByLabelText("To") as HTMLInputElement).value).toBe("2026-03-10");
    setDate("From", "2026-01-01");
    setDate("To", "2026-01-31");
    await userEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(changes).toEqual([{ kind: "custom", from: "2026-01-01", to: "2026-01-31" }]);
    expect(screen.queryByRole("alert")).toBeNull();
  });

  test("refuses a start after the end, saying what to change, and changes nothing", async () => {
    const changes: DayRange[] = [];
    renderWithProviders(<Harness changes={changes} />);
    await userEvent.click(screen.getByRole("button", { name: "Custom" }));
    setDate("From", "2026-03-05");
    setDate("To", "2026-03-01");
    await userEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(screen.getByRole("alert").textContent).toBe("The start date must be on or before the end date.");
    expect(screen.getByLabelText("From").getAttribute("aria-invalid")).toBe("true");
    expect(changes).toEqual([]);
  });

  test("refuses a range longer than 400 days and an empty date", async () => {
    const changes: DayRange[] = [];
    renderWithProviders(<Harness changes={changes} />);
    await userEvent.click(screen.getByRole("button", { name: "Custom" }));
    setDate("From", "2025-01-01");
    setDate("To", "2026-03-01");
    await userEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(screen.getByRole("alert").textContent).toBe("Choose a range of at most 400 days.");
    setDate("From", "");
    await userEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(screen.getByRole("alert").textContent).toBe("Choose a start date.");
    expect(changes).toEqual([]);
  });
});
