import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { renderApp, restoreFetch, withFetch } from "../tests/support/ui";
import { usesSidebar } from "./lib/layout";

afterEach(() => {
  cleanup();
  restoreFetch();
});

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const unauthorized = () => json({ error: { code: "unauthorized", message: "Please sign in to continue." } }, 401);
const ACME = { id: "o1", name: "Acme Dental", slug: "acme-dental", parentId: null, role: "owner" as const };
// nothing reaches the network: by default the visitor is signed out (tests that need more stack their own stand-in)
beforeEach(() => void withFetch(() => unauthorized()));
const ME = { user: { id: "u1", name: "Dana Scully", email: "dana@example.com" }, organizations: [ACME], currentOrg: ACME };

describe("routing and layout (SPEC §2)", () => {
  test("an unknown path shows the 404 screen with its exact heading and hint, inside the sidebar", async () => {
    renderApp("/no/such/page");
    expect(await screen.findByRole("heading", { name: "404 Page Not Found" })).toBeTruthy();
    expect(screen.getByText("Did you forget to add the page to the router?")).toBeTruthy();
    expect(screen.getByRole("complementary", { name: "Sidebar" })).toBeTruthy();
  });

  test("signed out, an unknown /app/… path is the 404 screen too, not a sign-in redirect", async () => {
    const f = withFetch(() => unauthorized());
    try {
      renderApp("/app/no-such-screen");
      expect(await screen.findByRole("heading", { name: "404 Page Not Found" })).toBeTruthy();
      expect(screen.queryByRole("heading", { name: "Sign in" })).toBeNull();
    } finally {
      f.restore();
    }
  });

  test("signed out, /app shows the sidebar with its seven entries, SPEC's Security Admin label and a sign-in link", async () => {
    const f = withFetch(() => unauthorized());
    try {
      renderApp("/app");
      const nav = await screen.findByRole("navigation", { name: "Main" });
      const labels = [...nav.querySelectorAll("a")].map((a) => a.textContent);
      expect(labels).toEqual(["Dashboard", "Domains", "DMARC Reports", "Tasks & Issues", "Threat Map", "DNS Lookup", "Settings"]);
      const dashboard = screen.getByRole("link", { name: "Dashboard" });
      expect(dashboard.getAttribute("href")).toBe("/app");
      expect(dashboard.getAttribute("aria-current")).toBe("page");
      await waitFor(() => expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/login"));
      expect(screen.getByText("Security Admin")).toBeTruthy();
    } finally {
      f.restore();
    }
  });

  test("signed out, an /app/* screen sends the visitor to /login?next=…", async () => {
    const f = withFetch(() => unauthorized());
    try {
      renderApp("/app/domains?x=1");
      expect(await screen.findByRole("heading", { name: "Sign in" })).toBeTruthy();
      expect(screen.getByRole("link", { name: "Create one" }).getAttribute("href")).toBe(`/signup?next=${encodeURIComponent("/app/domains?x=1")}`);
    } finally {
      f.restore();
    }
  });

  test("signed in, the sidebar shows the user with their role, highlights Dashboard on /app/dashboard, and logs out", async () => {
    let signedIn = true;
    const f = withFetch((url, init) => {
      if (url.endsWith("/api/auth/logout")) {
        signedIn = false;
        return json({ success: true });
      }
      if (url.endsWith("/api/auth/me")) return signedIn ? json(ME) : unauthorized();
      return json([]);
    });
    try {
      const user = userEvent.setup();
      renderApp("/app/dashboard");
      expect(await screen.findByText("Dana Scully")).toBeTruthy();
      expect(screen.getByText("Owner")).toBeTruthy();
      expect(screen.getByRole("link", { name: "Dashboard" }).getAttribute("aria-current")).toBe("page");
      expect(screen.getByRole("link", { name: "Domains" }).getAttribute("aria-current")).toBeNull();
      expect(screen.getByRole("button", { name: /switch organization/i }).textContent).toContain("Acme Dental");
      await user.click(screen.getByRole("button", { name: "Log out" }));
      expect(await screen.findByRole("heading", { name: "Sign in" })).toBeTruthy();
      expect(f.calls.some((c) => c.url.endsWith("/api/auth/logout") && c.init.method === "POST")).toBe(true);
    } finally {
      f.restore();
    }
  });

  test("public screens have no sidebar", async () => {
    renderApp("/contact");
    await screen.findByRole("heading", { level: 1 });
    expect(screen.queryByRole("complementary", { name: "Sidebar" })).toBeNull();
  });

  test.each([
    ["/", false],
    ["/trial", false],
    ["/demo", false],
    ["/contact", false],
    ["/onboarding/healthcare", false],
    ["/admin/dashboard", false],
    ["/app", true],
    ["/app/dns", true],
    ["/app/settings/", true],
    ["/somewhere-else", true],
  ])("usesSidebar(%p) is %p", (path, expected) => {
    expect(usesSidebar(path)).toBe(expected);
  });
});
