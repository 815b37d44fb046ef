import { useSyncExternalStore } from "react";

/**
 * Light or dark: "system" (the default) follows the device's prefers-color-scheme through the
 * stylesheet's media query; "light" and "dark" are the visitor's own choice, kept in
 * localStorage and applied as data-theme on <html> (daisyUI's theme selector).
 */
export type ThemeChoice = "system" | "light" | "dark";

export const THEME_STORAGE_KEY = "dmarcwarden-theme";
export const THEME_NAMES: Record<Exclude<ThemeChoice, "system">, string> = { light: "dmarcwarden", dark: "dmarcwarden-dark" };

const listeners = new Set<() => void>();

export function storedTheme(): ThemeChoice {
  try {
    const value = localStorage.getItem(THEME_STORAGE_KEY);
    return value === "light" || value === "dark" ? value : "system";
  } catch {
    return "system";
  }
}

/** Puts the choice on <html>: data-theme for an explicit choice, none for the system's. */
export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === "system") root.removeAttribute("data-theme");
  else root.setAttribute("data-theme", THEME_NAMES[choice]);
}

export function setTheme(choice: ThemeChoice): void {
  try {
    if (choice === "system") localStorage.removeItem(THEME_STORAGE_KEY);
    else localStorage.setItem(THEME_STORAGE_KEY, choice);
  } catch {
    // storage refused (private mode): the choice still holds for this page
  }
  applyTheme(choice);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function useTheme(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const choice = useSyncExternalStore(subscribe, storedTheme, () => "system" as const);
  return [choice, setTheme];
}
