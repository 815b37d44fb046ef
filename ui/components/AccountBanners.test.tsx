import { afterEach, describe, expect, test } from "bun:test";
import { cleanup, screen, waitFor } from "@testing-library/react";
import type { BillingStatus } from "../../src/features/billing/contract";
import { cleanUpAfterEach, renderWithProviders, restoreFetch, withFetch } from "../../tests/support/ui";
import { AccountBanners } from "./AccountBanners";

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
  const f = withFetch(() => (status ? Response.json({ ...base, ...status }) : Response.json({ error: { code: "unauthorized", message: "Please sign in" } }, { status: 401 })));
}

describe("AccountBanners", () => {
  test("past_due shows the failed-payment banner", async () => {
    serve({ status: "past_due" });
    renderWithProviders(<AccountBanners />);
    await screen.findByText("Your last payment failed");
    expect(screen.queryByText("Your organisation is read-only")).toBeNull();
  });

  test("read-only shows the server's reason", async () => {
    serve({ status: "canceled", readOnly: true, readOnlyMessage: "This organisation is read-only because its subscription was canceled." });
    renderWithProviders(<AccountBanners />);
    await screen.findByText("Your organisation is read-only");
    expect(screen.getByText("This organisation is read-only because its subscription was canceled.")).toBeTruthy();
  });

  test("a trial shows the days left; an account without a password is asked to set one", async () => {
    const now = new Date("2030-01-01T00:00:00Z");
    serve({ status: "trialing", trialEndsAt: "2030-01-04T00:00:00Z", hasPassword: false });
    renderWithProviders(<AccountBanners now={now} />);
    await screen.findByText("3 days left in your free trial of Growth.");
    expect(screen.getByRole("heading", { name: "Set your password" })).toBeTruthy();
  });

  test("nothing for a signed-out visitor or an account in good standing", async () => {
    serve(null);
    const { container } = renderWithProviders(<AccountBanners />);
    await waitFor(() => expect(container.textContent).toBe(""));
    cleanup();
    restoreFetch();
    serve({});
    const second = renderWithProviders(<AccountBanners />);
    await new Promise((r) => setTimeout(r, 20));
    expect(second.container.querySelector('[role="alert"]')).toBeNull();
    expect(screen.queryByText("Set your password")).toBeNull();
  });
});
