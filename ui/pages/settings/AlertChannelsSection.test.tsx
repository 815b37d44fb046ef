import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { AlertChannelsSection } from "./AlertChannelsSection";

cleanUpAfterEach();

const me = (role: string) => ({ user: { id: "u", name: "U", email: "u@example.test" }, currentOrg: { id: "o", name: "Org", role } });

describe("Settings › Alert channels", () => {
  test("admins add a webhook and see its secret once; field errors from the server show by the field", async () => {
    const channels: any[] = [];
    withFetch((url, init) => {
      if (url === "/api/auth/me") return json(me("admin"));
      if (url === "/api/alerts/channels" && init.method === "POST") {
        const body = JSON.parse(String(init.body));
        if (body.target.startsWith("http://")) return json({ error: { code: "validation_failed", message: "The URL must start with https://", fields: { target: "The URL must start with https://" } } }, 400);
        const channel = { id: "c1", type: body.type, name: body.name, target: body.target, eventTypes: null, enabled: true, hasSecret: true, createdAt: new Date().toISOString(), updatedAt: null };
        channels.push(channel);
        return json({ ...channel, secret: "whsec_shown_once" }, 201);
      }
      if (url === "/api/alerts/channels") return json({ channels });
      return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
    });
    renderWithProviders(<AlertChannelsSection />);
    const user = userEvent.setup();
    expect(await screen.findByText("No alert channels yet. Add one below.")).toBeTruthy();
    await user.selectOptions(screen.getByLabelText("Type"), "webhook");
    await user.type(screen.getByLabelText("Name"), "SIEM");
    await user.type(screen.getByLabelText("Webhook URL (receives signed JSON)"), "http://example.com/hook");
    await user.click(screen.getByRole("button", { name: "Add channel" }));
    expect(await screen.findByText("The URL must start with https://")).toBeTruthy();
    await user.clear(screen.getByLabelText("Webhook URL (receives signed JSON)"));
    await user.type(screen.getByLabelText("Webhook URL (receives signed JSON)"), "https://example.com/hook");
    await user.click(screen.getByRole("button", { name: "Add channel" }));
    expect((await screen.findByTestId("webhook-secret")).textContent).toBe("whsec_shown_once");
    await waitFor(() => expect(screen.getByText("SIEM")).toBeTruthy());
    await user.click(screen.getByRole("button", { name: "I have copied it" }));
    expect(screen.queryByTestId("webhook-secret")).toBeNull();
  });

  test("viewers see the channels without the controls", async () => {
    withFetch((url) => {
      if (url === "/api/auth/me") return json(me("viewer"));
      if (url === "/api/alerts/channels") return json({ channels: [{ id: "c1", type: "slack", name: "Chat", target: "https://hooks.slack.com/…", eventTypes: null, enabled: true, hasSecret: false, createdAt: new Date().toISOString(), updatedAt: null }] });
      return json({ deliveries: [] });
    });
    renderWithProviders(<AlertChannelsSection />);
    expect(await screen.findByText("Chat")).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole("button", { name: "Send a test" })).toBeNull());
    expect(screen.queryByRole("form", { name: "Add an alert channel" })).toBeNull();
    await userEvent.setup().click(screen.getByRole("button", { name: "Delivery log" }));
    expect(await screen.findByText("Nothing sent to this channel yet.")).toBeTruthy();
  });

  test("the alert limit is shown to everyone; admins change it, and a number out of bounds is refused by the field", async () => {
    let limit = { perWindow: 10, windowMinutes: 10, default: 10, min: 1, max: 100 };
    const saved: unknown[] = [];
    withFetch((url, init) => {
      if (url === "/api/auth/me") return json(me("admin"));
      if (url === "/api/alerts/limit" && init.method === "PUT") {
        saved.push(JSON.parse(String(init.body)));
        limit = { ...limit, ...JSON.parse(String(init.body)) };
        return json(limit);
      }
      if (url === "/api/alerts/limit") return json(limit);
      return json({ channels: [] });
    });
    renderWithProviders(<AlertChannelsSection />);
    const user = userEvent.setup();
    expect((await screen.findByTestId("alert-limit")).textContent).toBe("At most 10 alerts per channel every 10 minutes; more become one summary.");
    const field = screen.getByLabelText("Alerts per channel in 10 minutes");
    await user.clear(field);
    await user.type(field, "0");
    await user.click(screen.getByRole("button", { name: "Save limit" }));
    expect(await screen.findByText("Enter a whole number of alerts from 1 to 100")).toBeTruthy();
    expect(saved).toEqual([]);
    await user.clear(field);
    await user.type(field, "25");
    await user.click(screen.getByRole("button", { name: "Save limit" }));
    await waitFor(() => expect(screen.getByTestId("alert-limit").textContent).toBe("At most 25 alerts per channel every 10 minutes; more become one summary."));
    expect(saved).toEqual([{ perWindow: 25 }]);
    expect(screen.queryByText("Enter a whole number of alerts from 1 to 100")).toBeNull();
  });

  test("viewers read the alert limit without a field to change it", async () => {
    withFetch((url) => {
      if (url === "/api/auth/me") return json(me("viewer"));
      if (url === "/api/alerts/limit") return json({ perWindow: 1, windowMinutes: 10, default: 10, min: 1, max: 100 });
      return json({ channels: [] });
    });
    renderWithProviders(<AlertChannelsSection />);
    expect((await screen.findByTestId("alert-limit")).textContent).toBe("At most 1 alert per channel every 10 minutes; more become one summary.");
    expect(screen.queryByLabelText("Alerts per channel in 10 minutes")).toBeNull();
  });
});
