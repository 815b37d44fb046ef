import { afterEach, describe, expect, test } from "bun:test";
import { applyTheme, setTheme, storedTheme, THEME_STORAGE_KEY } from "./theme";

afterEach(() => setTheme("system"));

describe("light and dark", () => {
  test("by default the system decides: no data-theme on <html>, nothing stored", () => {
    applyTheme(storedTheme());
    expect(storedTheme()).toBe("system");
    expect(document.documentElement.hasAttribute("data-theme")).toBe(false);
  });

  test("a choice is kept and applied; System forgets it", () => {
    setTheme("dark");
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe("dark");
    expect(document.documentElement.dataset.theme).toBe("dmarcwarden-dark");
    setTheme("light");
    expect(storedTheme()).toBe("light");
    expect(document.documentElement.dataset.theme).toBe("dmarcwarden");
    setTheme("system");
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBeNull();
    expect(document.documentElement.hasAttribute("data-theme")).toBe(false);
  });

  test("a stored value that is not a theme counts as System", () => {
    localStorage.setItem(THEME_STORAGE_KEY, "purple");
    expect(storedTheme()).toBe("system");
  });
});
