/** Renders a screen inside the app's providers and router, as a user would reach it. */
import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import { MemoryRouter } from "react-router";
import { App, Providers } from "../../ui/App";
import { createQueryClient } from "../../ui/lib/queryClient";

export function renderApp(path: string) {
  const client = createQueryClient();
  return { client, ...render(<MemoryRouter initialEntries={[path]}><App client={client} /></MemoryRouter>) };
}

export function renderWithProviders(ui: ReactElement, path = "/") {
  const client = createQueryClient();
  return { client, ...render(<MemoryRouter initialEntries={[path]}><Providers client={client}>{ui}</Providers></MemoryRouter>) };
}

/** Replaces fetch for one test with a function that answers like the server would. */
export function withFetch(answer: (url: string, init: RequestInit) => Response | Promise<Response>) {
  const calls: { url: string; init: RequestInit }[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    calls.push({ url, init });
    return answer(url, init);
  }) as typeof fetch;
  return { calls, restore: () => void (globalThis.fetch = original) };
}
