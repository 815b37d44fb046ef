/** The bell lists the server's events (GET /api/events) with the page's own notifications; read state goes back to the server. */
import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../tests/support/ui";
import { NotificationsMenu, type AppNotification } from "./NotificationsMenu";

cleanUpAfterEach();
const now = new Date("2025-03-01T12:00:00Z");

const event = (id: string, title: string, read: boolean, minutesAgo: number) => ({
  id,
  type: "dns.dmarc_weakened",
  domain: "example.com",
  data: {},
  occurredAt: new Date(now.getTime() - minutesAgo * 60_000).toISOString(),
  read,
  title,
  summary: "Mail forged as example.com is now less likely to be stopped.",
  severity: "critical",
  link: "/app/domains?domain=example.com",
});

describe("notifications bell with server events", () => {
  test("server and local notifications together; click and Mark all read reach the server", async () => {
    let unread = 2;
    const { calls } = withFetch((url, init) => {
      if (url === "/api/events" && (init.method ?? "GET") === "GET")
        return json({ events: [event("e1", "DMARC policy of example.com weakened", unread < 2, 2), event("e2", "SPF of example.com needs 12 DNS lookups (limit 10)", unread < 1, 90)], page: 1, pageSize: 20, total: 2, unread });
      if (url === "/api/events/read") {
        unread = 1;
        return json({ unread });
      }
      if (url === "/api/events/read-all") {
        unread = 0;
        return json({ unread });
      }
      return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
    });
    const local: AppNotification[] = [{ id: "local-1", type: "warning", title: "Publish DMARC", message: "m", timestamp: new Date(now.getTime() - 5 * 60_000), read: false }];
    renderWithProviders(<NotificationsMenu notifications={local} now={now} />);
    const user = userEvent.setup();
    await user.click(await screen.findByRole("button", { name: "Notifications: 3 unread" }));
    expect(screen.getByText("DMARC policy of example.com weakened")).toBeTruthy();
    expect(screen.getByText("1h ago")).toBeTruthy();
    await user.click(screen.getByText("DMARC policy of example.com weakened"));
    await waitFor(() => expect(calls.some((c) => c.url === "/api/events/read" && c.init.body === JSON.stringify({ ids: ["e1"] }))).toBe(true));
    await user.click(screen.getByText("Mark all read"));
    await waitFor(() => expect(calls.some((c) => c.url === "/api/events/read-all")).toBe(true));
    await waitFor(() => expect(document.querySelectorAll('[data-read="false"]').length).toBe(0));
  });
});
