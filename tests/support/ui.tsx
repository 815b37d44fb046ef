/** Renders a screen inside the app's providers and router, as a user would reach it. */
import { afterEach } from "bun:test";
import { cleanup, render } from "@testing-library/react";
import type { ReactElement } from "react";
import { MemoryRouter } from "react-router";
import { App, Providers } from "../../ui/App";
import { createQueryClient } from "../../ui/lib/queryClient";
import { resetToasts } from "../../ui/lib/toast";

// The sidebar layout and the toaster are chunks the app loads lazily; imported here up front so
// a test's findBy does not spend its wait on their first load.
await Promise.all([import("../../ui/components/AppLayout"), import("../../ui/components/Toaster")]);

export function renderApp(path: string) {
  const client = createQueryClient();
  return { client, ...render(<MemoryRouter initialEntries={[path]}><App client={client} /></MemoryRouter>) };
}

export function renderWithProviders(ui: ReactElement, path = "/") {
  const client = createQueryClient();
  return { client, ...render(<MemoryRouter initialEntries={[path]}><Providers client={client}>{ui}</Providers></MemoryRouter>) };
}

/** A JSON response as the server sends it. */
export const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

const fetchRestorers: (() => void)[] = [];

/**
 * Replaces fetch for one test with a function that answers like the server would. `restore()`
 * puts the previous fetch back; `cleanUpAfterEach()` also does it after every test.
 */
export function withFetch(answer: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    calls.push({ url, init });
    return answer(url, init);
  }) as typeof fetch;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    globalThis.fetch = original;
  };
  fetchRestorers.push(restore);
  return { calls, restore };
}

/** Puts back every fetch stand-in still in place, newest first. */
export function restoreFetch() {
  while (fetchRestorers.length) fetchRestorers.pop()!();
}

/** The usual UI test teardown: after each test, unmount what was rendered, clear toasts and restore fetch. */
export function cleanUpAfterEach() {
  afterEach(() => {
    cleanup();
    resetToasts();
    restoreFetch();
  });
}
