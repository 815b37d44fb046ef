import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { ReportMailboxSection } from "./ReportMailboxSection";

cleanUpAfterEach();

const ADDRESS = "a1b2c3d4e5f60718@reports.example.net";
function server(options: { role?: string; address?: string | null; mailbox?: unknown; test?: unknown; domains?: string[] } = {}) {
  const f = withFetch((url, init) => {
    const method = init.method ?? "GET";
    if (url === "/api/domains" && options.domains) return json(options.domains.map((name) => ({ id: name, name })));
    if (url.startsWith("/api/report-path?domain=")) {
      const domain = decodeURIComponent(url.split("=")[1]!);
      const route = (kind: string) => ({ kind, address: `dmarc@${domain}`, rua: `mailto:dmarc@${domain}`, external: null });
      return json({ domain, mode: "choice", routes: [route("mailbox"), route("upload")] });
    }
    if (url === "/api/auth/me") return json({ user: { id: "u", name: "Ada", email: "a@x" }, organizations: [], currentOrg: { id: "o", name: "Org", slug: "org", parentId: null, role: options.role ?? "owner" } });
    if (url === "/api/settings/report-address") return json(options.address === null ? { address: null } : { address: ADDRESS, rua: `mailto:${ADDRESS}`, ruf: `mailto:${ADDRESS}` });
    if (url === "/api/settings/mailbox" && method === "GET") return json({ mailbox: options.mailbox ?? null });
    if (url === "/api/settings/mailbox" && method === "PUT") {
      const body = JSON.parse(String(init.body));
      return json({ mailbox: { ...body, password: undefined, hasPassword: true, lastPolledAt: null, lastError: null, lastPollMessages: null } });
    }
    if (url === "/api/settings/mailbox/test") return json(options.test ?? { ok: true, folder: "INBOX", messages: 4, unseen: 1 });
    if (url === "/api/settings/mailbox/poll")
      return json({ ok: true, outcome: { processed: 2, invalid: 0, retried: 0 }, mailbox: { ...(options.mailbox as object), lastPolledAt: new Date().toISOString(), lastError: null, lastPollMessages: 2 } });
    return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
  });
  return f.calls;
}

describe("ReportMailboxSection", () => {
  test("shows the organization's report address with what to publish", async () => {
    server();
    renderWithProviders(<ReportMailboxSection />);
    expect((await screen.findByTestId("report-address")).textContent).toBe(ADDRESS);
    expect(screen.getByText(`rua=mailto:${ADDRESS}`)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Copy report address" })).toBeTruthy();
  });

  test("says how to get an address when the SMTP receiver is off", async () => {
    server({ address: null });
    renderWithProviders(<ReportMailboxSection />);
    expect(await screen.findByText(/its SMTP receiver is off/)).toBeTruthy();
    expect(screen.queryByTestId("report-address")).toBeNull();
  });

  test("receiver off with a domain: a choice between connecting a mailbox and uploading, each with its exact rua", async () => {
    server({ address: null, domains: ["acme.example"] });
    renderWithProviders(<ReportMailboxSection />);
    expect((await screen.findByTestId("rua-mailbox")).textContent).toBe("mailto:dmarc@acme.example");
    expect(screen.getByTestId("rua-upload").textContent).toBe("mailto:dmarc@acme.example");
    expect(screen.getByRole("heading", { name: "Connect a mailbox (IMAP)" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Upload reports" })).toBeTruthy();
    expect(screen.getByText(/in Report mailbox \(IMAP\) below/)).toBeTruthy();
  });

  test("an admin saves a mailbox and tests the connection; the password field never shows the stored one", async () => {
    const calls = server({ test: { ok: false, error: "The IMAP server refused the user name or password." } });
    const user = userEvent.setup();
    renderWithProviders(<ReportMailboxSection />);
    await user.type(await screen.findByLabelText("IMAP server"), "imap.example.com");
    await user.type(screen.getByLabelText("User name"), "dmarc@example.com");
    await user.type(screen.getByLabelText("Password"), "s3cret");
    await user.click(screen.getByRole("button", { name: /Test connection/ }));
    expect(await screen.findByText("Connection failed: The IMAP server refused the user name or password.")).toBeTruthy();
    const tested = calls.find((c) => c.url === "/api/settings/mailbox/test")!;
    expect(JSON.parse(String(tested.init.body))).toEqual({ host: "imap.example.com", port: 993, tls: true, username: "dmarc@example.com", password: "s3cret", folder: "INBOX" });

    await user.click(screen.getByRole("button", { name: "Save mailbox" }));
    await waitFor(() => expect(calls.some((c) => c.url === "/api/settings/mailbox" && c.init.method === "PUT")).toBe(true));
    expect(await screen.findByText(/Leave blank to keep it/)).toBeTruthy();
    expect((screen.getByLabelText("Password") as HTMLInputElement).value).toBe("");
  });

  test("a field the schema refuses is explained before anything is sent", async () => {
    const calls = server();
    const user = userEvent.setup();
    renderWithProviders(<ReportMailboxSection />);
    await user.click(await screen.findByRole("button", { name: "Save mailbox" }));
    expect(await screen.findByText("Enter the IMAP server's host name, e.g. imap.example.com")).toBeTruthy();
    expect(calls.some((c) => c.init.method === "PUT")).toBe(false);
  });

  test("shows the last poll's error, and viewers cannot change the mailbox", async () => {
    server({
      role: "viewer",
      mailbox: { host: "imap.example.com", port: 993, tls: true, username: "dmarc", folder: "INBOX", hasPassword: true, lastPolledAt: new Date().toISOString(), lastError: "The IMAP server refused the user name or password.", lastPollMessages: null },
    });
    renderWithProviders(<ReportMailboxSection />);
    expect(await screen.findByText(/failed: The IMAP server refused the user name or password\./)).toBeTruthy();
    expect(await screen.findByText("Only owners and admins of the organization can change the mailbox.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Save mailbox" })).toBeNull();
    expect(screen.getByLabelText("IMAP server").closest("fieldset")!.disabled).toBe(true);
  });

  test("Check now polls the saved mailbox and shows the outcome", async () => {
    const calls = server({ mailbox: { host: "imap.example.com", port: 993, tls: true, username: "dmarc", folder: "INBOX", hasPassword: true, lastPolledAt: null, lastError: null, lastPollMessages: null } });
    const user = userEvent.setup();
    renderWithProviders(<ReportMailboxSection />);
    expect(await screen.findByText(/The first check runs within a few minutes/)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Check now" }));
    expect(await screen.findByText(/Last checked just now: 2 messages read/)).toBeTruthy();
    expect(calls.some((c) => c.url === "/api/settings/mailbox/poll" && c.init.method === "POST")).toBe(true);
  });
});
