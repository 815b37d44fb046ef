import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { ContactSubmission } from "../../../src/features/admin/contract";
import { cleanUpAfterEach, json, renderApp, withFetch } from "../../../tests/support/ui";
import { ADMIN_SESSION_KEY } from "../../lib/adminSession";

beforeEach(() => localStorage.clear());
afterEach(() => localStorage.clear());
cleanUpAfterEach();

const sub = (over: Partial<ContactSubmission>): ContactSubmission => ({
  id: "s1",
  name: "Ann Lee",
  email: "ann@acme.test",
  phone: null,
  company: "Acme Law",
  domains: null,
  requestType: "sales",
  subject: "Pricing for five domains",
  message: "We would like to know the price for five domains and two users.",
  isRead: false,
  submittedAt: "2025-03-01T10:00:00.000Z",
  ...over,
});

/** A small stand-in for the admin API holding the list in memory. */
function adminServer(initial: ContactSubmission[], opts: { list?: (headers: Headers) => Response | null; logout?: number } = {}) {
  const rows = initial.map((r) => ({ ...r }));
  const f = withFetch((url, init) => {
    const headers = new Headers(init.headers);
    const method = init.method ?? "GET";
    if (url.endsWith("/api/admin/contact-submissions") && method === "GET") return opts.list?.(headers) ?? json(rows);
    const m = url.match(/contact-submissions\/(.+)\/read$/);
    if (m && method === "PUT") {
      const row = rows.find((r) => r.id === m[1]);
      if (!row) return json({ error: { code: "not_found", message: "Not found." } }, 404);
      row.isRead = true;
      return json(row);
    }
    if (url.endsWith("/api/admin/logout")) return opts.logout ? json({ error: { code: "x", message: "no" } }, opts.logout) : json({ success: true, message: "Logged out" });
    return json({ error: { code: "unauthorized", message: "Please sign in to continue." } }, 401);
  });
  return f.calls;
}

/** Waits until the console is gone (cheap check: a failing expect would print the whole DOM). */
const leftTheConsole = () =>
  waitFor(() => {
    if (screen.queryByText("Master Administrator Console")) throw new Error("still on the console");
    if (!screen.queryByRole("button", { name: "Sign In" })) throw new Error("not on the landing page yet");
  });

const rowsOf = () => screen.getAllByRole("row").slice(1);

describe("Master Administrator Console", () => {
  test("without a stored session: Access Denied toast, redirect to /, no list call", async () => {
    const calls = adminServer([]);
    renderApp("/admin/dashboard");
    expect(await screen.findByText("Access Denied")).toBeTruthy();
    expect(screen.getByText("Admin login required")).toBeTruthy();
    await leftTheConsole();
    expect(calls.filter((c) => c.url.includes("contact-submissions"))).toHaveLength(0);
  });

  test("when the server answers 401 the stored id is dropped and the user is sent away", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "stale");
    adminServer([], { list: () => json({ error: { code: "unauthorized", message: "Admin login required." } }, 401) });
    renderApp("/admin/dashboard");
    expect(await screen.findByText("Access Denied")).toBeTruthy();
    await waitFor(() => expect(localStorage.getItem(ADMIN_SESSION_KEY)).toBeNull());
  });

  test("loading, then the list with counters; X-Admin-Session is sent", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "sess-1");
    const calls = adminServer([
      sub({ id: "a", phone: "+1 555 0100", domains: "acme.test, acme.law" }),
      sub({ id: "b", name: "Bob Stone", email: "bob@zeta.test", company: "Zeta Dental", requestType: "support", subject: "SPF record broken", isRead: true }),
      sub({ id: "c", name: "Cy Park", email: "cy@omega.test", company: "Omega", requestType: "demo", subject: "Demo please" }),
    ]);
    renderApp("/admin/dashboard");
    expect(screen.getByText("Loading contact submissions...")).toBeTruthy();
    expect(await screen.findByText("Bob Stone")).toBeTruthy();
    // SPEC's screen name, whole at every width (it wraps on phones instead of being cut with an ellipsis)
    const title = screen.getByRole("heading", { level: 1, name: "Master Administrator Console" });
    expect(title.className).not.toContain("truncate");
    expect(screen.getByRole("button", { name: "Logout" })).toBeTruthy();
    const listCall = calls.find((c) => c.url.endsWith("/api/admin/contact-submissions"))!;
    expect(new Headers(listCall.init.headers).get("x-admin-session")).toBe("sess-1");
    expect(new Headers(listCall.init.headers).get("content-type")).toBe("application/json");

    expect(screen.getByTestId("count-Total Submissions").textContent).toBe("3");
    expect(screen.getByTestId("count-Unread").textContent).toBe("2");
    expect(screen.getByTestId("count-Sales Inquiries").textContent).toBe("1");
    expect(screen.getByTestId("count-Support Requests").textContent).toBe("1");
    const headers = screen.getAllByRole("columnheader").map((h) => h.textContent);
    expect(headers).toEqual(["Status", "Contact", "Company", "Request", "Subject", "Submitted", "Actions"]);

    const [a, b] = rowsOf();
    expect(within(a!).getByText("New")).toBeTruthy();
    expect(a!.getAttribute("data-unread")).toBe("true");
    expect(within(a!).getByText("+1 555 0100")).toBeTruthy();
    expect(within(a!).getByText("Domains: acme.test, acme.law")).toBeTruthy();
    expect(within(a!).getByText(/We would like to know/).className).toContain("line-clamp-2");
    expect(within(a!).getByRole("button", { name: "Mark Read" })).toBeTruthy();
    expect(within(b!).getByText("Read")).toBeTruthy();
    expect(within(b!).queryByRole("button", { name: "Mark Read" })).toBeNull();
  });

  test("search and the filter buttons narrow the table; nothing matching shows No submissions found", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "sess-1");
    adminServer([
      sub({ id: "a" }),
      sub({ id: "b", name: "Bob Stone", email: "bob@zeta.test", company: "Zeta Dental", requestType: "support", subject: "SPF record broken", isRead: true }),
      sub({ id: "c", name: "Cy Park", email: "cy@omega.test", company: "Omega", requestType: "demo", subject: "Demo please" }),
    ]);
    const user = userEvent.setup();
    renderApp("/admin/dashboard");
    await screen.findByText("Bob Stone");
    await user.click(screen.getByRole("button", { name: "Unread" }));
    expect(rowsOf()).toHaveLength(2);
    await user.click(screen.getByRole("button", { name: "Support" }));
    expect(rowsOf()).toHaveLength(1);
    await user.click(screen.getByRole("button", { name: "Sales" }));
    expect(within(rowsOf()[0]!).getByText("Ann Lee")).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "All" }));
    await user.type(screen.getByLabelText("Search submissions"), "ZETA");
    expect(rowsOf()).toHaveLength(1);
    expect(within(rowsOf()[0]!).getByText("Bob Stone")).toBeTruthy();
    await user.clear(screen.getByLabelText("Search submissions"));
    await user.type(screen.getByLabelText("Search submissions"), "nobody at all");
    expect(screen.getByText("No submissions found")).toBeTruthy();
  });

  test("Mark Read calls PUT, refetches and shows Marked as Read", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "sess-1");
    const calls = adminServer([sub({ id: "a" })]);
    const user = userEvent.setup();
    renderApp("/admin/dashboard");
    await user.click(await screen.findByRole("button", { name: "Mark Read" }));
    expect(await screen.findByText("Marked as Read")).toBeTruthy();
    await waitFor(() => expect(within(rowsOf()[0]!).getByText("Read")).toBeTruthy());
    expect(screen.queryByRole("button", { name: "Mark Read" })).toBeNull();
    const put = calls.find((c) => c.init.method === "PUT")!;
    expect(put.url).toEndWith("/api/admin/contact-submissions/a/read");
    expect(new Headers(put.init.headers).get("x-admin-session")).toBe("sess-1");
    expect(calls.filter((c) => c.url.endsWith("/contact-submissions") && (c.init.method ?? "GET") === "GET")).toHaveLength(2);
    expect(screen.getByTestId("count-Unread").textContent).toBe("0");
  });

  test("a failing list shows Failed to load submissions", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "sess-1");
    adminServer([], { list: () => json({ error: { code: "internal_error", message: "boom" } }, 500) });
    renderApp("/admin/dashboard");
    expect(await screen.findByText("Failed to load submissions")).toBeTruthy();
  });

  test("an empty list shows No submissions found", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "sess-1");
    adminServer([]);
    renderApp("/admin/dashboard");
    expect(await screen.findByText("No submissions found")).toBeTruthy();
  });

  test("Logout posts the session id, forgets it, toasts Logged Out and leaves", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "sess-1");
    const calls = adminServer([]);
    const user = userEvent.setup();
    renderApp("/admin/dashboard");
    await screen.findByText("No submissions found");
    await user.click(screen.getByRole("button", { name: "Logout" }));
    expect(await screen.findByText("Logged Out")).toBeTruthy();
    expect(localStorage.getItem(ADMIN_SESSION_KEY)).toBeNull();
    const post = calls.find((c) => c.url.endsWith("/api/admin/logout"))!;
    expect(JSON.parse(String(post.init.body))).toEqual({ sessionId: "sess-1" });
    await leftTheConsole();
  });

  test("a failed logout shows Logout Error and stays", async () => {
    localStorage.setItem(ADMIN_SESSION_KEY, "sess-1");
    adminServer([], { logout: 500 });
    const user = userEvent.setup();
    renderApp("/admin/dashboard");
    await screen.findByText("No submissions found");
    await user.click(screen.getByRole("button", { name: "Logout" }));
    expect(await screen.findByText("Logout Error")).toBeTruthy();
    expect(screen.getByText("Failed to logout properly")).toBeTruthy();
    expect(localStorage.getItem(ADMIN_SESSION_KEY)).toBe("sess-1");
    expect(screen.getByText("Master Administrator Console")).toBeTruthy();
  });
});
