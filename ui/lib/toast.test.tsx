import { afterEach, describe, expect, test } from "bun:test";
import { act, cleanup, screen } from "@testing-library/react";
import { renderWithProviders } from "../../tests/support/ui";
import { resetToasts, toast, TOAST_DURATION, TOAST_LIMIT, TOAST_REMOVE_DELAY } from "./toast";

afterEach(() => {
  cleanup();
  resetToasts();
});

describe("toasts (SPEC §4/§9)", () => {
  test("constants: one visible, 5000 ms display, 1000000 ms removal delay", () => {
    expect(TOAST_LIMIT).toBe(1);
    expect(TOAST_DURATION).toBe(5000);
    expect(TOAST_REMOVE_DELAY).toBe(1_000_000);
  });

  test("a second toast replaces the first: at most one notice is visible", async () => {
    renderWithProviders(<div />);
    act(() => void toast({ title: "First notice" }));
    expect(await screen.findByText("First notice")).toBeTruthy();
    act(() => void toast({ title: "Second notice", description: "details" }));
    expect(await screen.findByText("Second notice")).toBeTruthy();
    expect(screen.queryByText("First notice")).toBeNull();
    expect(screen.getAllByTestId("toast")).toHaveLength(1);
  });
});
