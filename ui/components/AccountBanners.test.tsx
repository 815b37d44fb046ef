import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, screen, waitFor } from "@testing-library/react";
import type { BillingStatus } from "../../src/features/billing/contract";
import { cleanUpAfterEach, renderWithProviders, restoreFetch, withFetch } from "../../tests/support/ui";
import { AccountBanners, billingStatusKey } from "./AccountBanners";

cleanUpAfterEach();

const base: BillingStatus = {
  plan: "growth",
  planName: "Growth",
  status: "active",
  trialEndsAt: null,
  readOnly: false,
  readOnlyMessage: null,
  hasPassword: true,
  limits: { domains: 50, members: 25, enforced: true },
  usage: { domains: 1, members: 1 },
};

function serve(status: Partial<BillingStatus> | null) {
  return withFetch(() => (status ? Response.json({ ...base, ...status }) : Response.json({ error: { code: "unauthorized", message: "Please sign in" } }, { status: 401 })));
}

describe("AccountBanners", () => {
  test("past_due shows the failed-payment banner", async () => {
    serve({ status: "past_due" });
    renderWithProviders(<AccountBanners />);
    await screen.findByText("Your last payment failed");
    expect(screen.queryByText("Your organization is read-only")).toBeNull();
  });

  test("read-only shows the server's reason", async () => {
    serve({ status: "canceled", readOnly: true, readOnlyMessage: "This organization is read-only because its subscription was canceled." });
    renderWithProviders(<AccountBanners />);
    await screen.findByText("Your organization is read-only");
    expect(screen.getByText("This organization is read-only because its subscription was canceled.")).toBeTruthy();
  });

  test("a trial shows the days left; an account without a password is asked to set one", async () => {
    const now = new Date("2030-01-01T00:00:00Z");
    serve({ status: "trialing", trialEndsAt: "2030-01-04T00:00:00Z", hasPassword: false });
    renderWithProviders(<AccountBanners now={now} />);
    await screen.findByText("3 days left in your free trial of Growth.");
    expect(screen.getByRole("heading", { name: "Set your password" })).toBeTruthy();
  });

  test("the set-password prompt only when the server says there is no password", async () => {
    serve({ hasPassword: undefined });
    const { client, container } = renderWithProviders(<AccountBanners />);
    await waitFor(() => expect(client.getQueryData(billingStatusKey)).toMatchObject({ status: "active" }));
    expect(screen.queryByText("Set your password")).toBeNull();
    expect(container.textContent).toBe("");
  });

  test("nothing for a signed-out visitor or an account in good standing, once the status has arrived", async () => {
    // signed out: the status query answers 401, read as "no account"
    const signedOut = serve(null);
    const first = renderWithProviders(<AccountBanners />);
    await waitFor(() => expect(first.client.getQueryState(billingStatusKey)?.status).toBe("success"));
    expect(signedOut.calls.map((c) => c.url)).toEqual(["/api/billing/status"]);
    expect(first.client.getQueryData(billingStatusKey)).toBeNull();
    expect(first.container.textContent).toBe("");
    cleanup();
    restoreFetch();

    // in good standing: the status is there, and says nothing to show
    serve({});
    const second = renderWithProviders(<AccountBanners />);
    await waitFor(() => expect(second.client.getQueryData(billingStatusKey)).toMatchObject({ status: "active", hasPassword: true }));
    expect(second.container.textContent).toBe("");
    expect(screen.queryByRole("region", { name: "Account notices" })).toBeNull();
    expect(screen.queryByText("Set your password")).toBeNull();
  });
});
