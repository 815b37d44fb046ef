import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useLocation } from "react-router";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { OAUTH_CONNECT_RESULTS, reconnectNeeded } from "../../../src/features/mailin/oauth-contract";
import { OAuthMailboxesPanel } from "./OAuthMailboxesPanel";

cleanUpAfterEach();

const PROVIDERS = [
  { provider: "microsoft", label: "Microsoft 365", configured: true },
  { provider: "google", label: "Google Workspace", configured: false },
];
const mailbox = (over: Record<string, unknown> = {}) => ({
  id: "mb1",
  provider: "microsoft",
  providerLabel: "Microsoft 365",
  email: "dmarc@contoso.example",
  folder: "INBOX",
  status: "active",
  lastPolledAt: null,
  lastError: null,
  lastPollMessages: null,
  createdAt: new Date().toISOString(),
  ...over,
});

function server(options: { mailboxes?: unknown[]; providers?: unknown[] } = {}) {
  const f = withFetch((url, init) => {
    const method = init.method ?? "GET";
    if (url === "/api/settings/oauth-mailboxes" && method === "GET") return json({ providers: options.providers ?? PROVIDERS, mailboxes: options.mailboxes ?? [] });
    if (url === "/api/settings/oauth-mailboxes/connect") return json({ redirectUrl: "about:blank#consent" });
    if (url === "/api/settings/oauth-mailboxes/mb1/poll")
      return json({ ok: true, outcome: { processed: 1, invalid: 0, retried: 0 }, mailbox: mailbox({ lastPolledAt: new Date().toISOString(), lastPollMessages: 1 }) });
    return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
  });
  return f.calls;
}

describe("OAuthMailboxesPanel", () => {
  test("offers a connect button for each configured provider only, and checks the folder first", async () => {
    const calls = server();
    const user = userEvent.setup();
    renderWithProviders(<OAuthMailboxesPanel canManage roleKnown />);
    expect(await screen.findByRole("button", { name: "Connect Microsoft 365" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Connect Google Workspace" })).toBeNull();
    const folder = screen.getByLabelText("Folder or Gmail label");
    await user.clear(folder);
    await user.type(folder, "Processed");
    await user.click(screen.getByRole("button", { name: "Connect Microsoft 365" }));
    expect(await screen.findByText(/Processed and Invalid are where read messages are moved/)).toBeTruthy();
    expect(calls.some((c) => c.url === "/api/settings/oauth-mailboxes/connect")).toBe(false);
    await user.clear(folder);
    await user.type(folder, "DMARC");
    await user.click(screen.getByRole("button", { name: "Connect Microsoft 365" }));
    await waitFor(() => expect(calls.some((c) => c.url === "/api/settings/oauth-mailboxes/connect")).toBe(true));
    expect(JSON.parse(String(calls.find((c) => c.url === "/api/settings/oauth-mailboxes/connect")!.init.body))).toEqual({ provider: "microsoft", folder: "DMARC" });
  });

  test("a mailbox whose consent was withdrawn says so and offers Reconnect instead of Check now", async () => {
    const error = reconnectNeeded("Microsoft 365", "dmarc@contoso.example");
    server({ mailboxes: [mailbox({ status: "reconnect", lastError: error, lastPolledAt: new Date().toISOString() })] });
    renderWithProviders(<OAuthMailboxesPanel canManage roleKnown />);
    expect(await screen.findByText("Reconnect needed")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toContain(error);
    expect(screen.getByRole("button", { name: "Reconnect" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Check now" })).toBeNull();
  });

  test("Check now polls the mailbox and shows the outcome; viewers only see the list", async () => {
    const calls = server({ mailboxes: [mailbox()] });
    const user = userEvent.setup();
    const view = renderWithProviders(<OAuthMailboxesPanel canManage roleKnown />);
    await user.click(await screen.findByRole("button", { name: "Check now" }));
    expect(await screen.findByText(/1 message read/)).toBeTruthy();
    expect(calls.some((c) => c.url === "/api/settings/oauth-mailboxes/mb1/poll" && c.init.method === "POST")).toBe(true);
    view.unmount();

    server({ mailboxes: [mailbox()] });
    renderWithProviders(<OAuthMailboxesPanel canManage={false} roleKnown />);
    expect(await screen.findByText("dmarc@contoso.example")).toBeTruthy();
    expect(screen.getByText("Only owners and admins of the organization can connect or remove mailboxes.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Check now" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Connect/ })).toBeNull();
  });

  test("without any configured provider, says how the administrator turns them on", async () => {
    server({ providers: PROVIDERS.map((p) => ({ ...p, configured: false })) });
    renderWithProviders(<OAuthMailboxesPanel canManage roleKnown />);
    expect(await screen.findByText(/This server is not set up for Microsoft 365 or Google Workspace mailboxes/)).toBeTruthy();
  });

  test("after the provider's return, says once how it went and forgets it from the address bar", async () => {
    server();
    function Search() {
      return <span data-testid="search">{useLocation().search}</span>;
    }
    renderWithProviders(
      <>
        <OAuthMailboxesPanel canManage roleKnown />
        <Search />
      </>,
      "/app/settings?oauth_mailbox=denied",
    );
    expect((await screen.findByRole("status")).textContent).toContain(OAUTH_CONNECT_RESULTS.denied);
    await waitFor(() => expect(screen.getByTestId("search").textContent).toBe(""));
    // still shown after the address bar forgot it
    expect(screen.getByRole("status").textContent).toContain(OAUTH_CONNECT_RESULTS.denied);
  });

  test("back from signing in again after the session ended: says so and offers the connection again", async () => {
    server();
    renderWithProviders(<OAuthMailboxesPanel canManage roleKnown />, "/app/settings?oauth_mailbox=signed_out#report-mail");
    expect((await screen.findByRole("status")).textContent).toContain(OAUTH_CONNECT_RESULTS.signed_out);
    expect(await screen.findByRole("button", { name: "Connect Microsoft 365" })).toBeTruthy();
  });
});
