import { describe, expect, test } from "bun:test";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { TRIAL_VERIFICATION_MESSAGE } from "../../../src/features/billing/contract";
import { cleanUpAfterEach, json, renderApp, withFetch } from "../../../tests/support/ui";

cleanUpAfterEach();

/** The plan step of /trial (SPEC §2 Trial signup, §9 plans). */
describe("trial plan step", () => {
  const checked = () => screen.getAllByRole("radio").filter((r) => r.getAttribute("aria-checked") === "true").map((r) => r.getAttribute("data-plan"));

  test("Growth is the default and marked Most Popular; prices as SPEC §9", async () => {
    const f = withFetch(() => json({ enabled: false, publishableKey: null }));
    try {
      renderApp("/trial");
      await screen.findByRole("radiogroup", { name: "Plans" });
      expect(checked()).toEqual(["growth"]);
      const growth = screen.getAllByRole("radio").find((r) => r.getAttribute("data-plan") === "growth")!;
      expect(within(growth).getByText("Most Popular")).toBeTruthy();
      const prices = screen.getAllByRole("radio").map((r) => r.textContent?.match(/\$\d+\/month/)?.[0]);
      expect(prices).toEqual(["$29/month", "$99/month", "$299/month"]);
    } finally {
      f.restore();
    }
  });

  test("a plan card on the landing page (/trial?plan=essentials) arrives with that plan chosen", async () => {
    const f = withFetch(() => json({ enabled: false, publishableKey: null }));
    try {
      renderApp("/trial?plan=essentials");
      await screen.findByRole("radiogroup", { name: "Plans" });
      expect(checked()).toEqual(["essentials"]);
    } finally {
      f.restore();
    }
  });

  test("an unknown plan key keeps the default", async () => {
    const f = withFetch(() => json({ enabled: false, publishableKey: null }));
    try {
      renderApp("/trial?plan=platinum");
      await screen.findByRole("radiogroup", { name: "Plans" });
      expect(checked()).toEqual(["growth"]);
    } finally {
      f.restore();
    }
  });
});

/** With mail on the server, the details step signs nobody in: the flow ends on "check your email". */
describe("trial details with mail on the server", () => {
  const answers = (url: string) =>
    url === "/api/billing/config"
      ? json({ enabled: false, publishableKey: null })
      : url === "/api/create-trial-setup"
        ? json({ clientSecret: null, verificationSent: true, message: TRIAL_VERIFICATION_MESSAGE })
        : json({ error: { code: "unauthorized", message: "Sign in first." } }, 401);

  test("after the details the visitor sees “Check your email to continue”, is not taken to the dashboard and nothing signed-in is called", async () => {
    const f = withFetch(answers);
    try {
      const user = userEvent.setup();
      renderApp("/trial");
      await user.click(await screen.findByRole("button", { name: "Continue" }));
      await user.type(await screen.findByLabelText("Company Name"), "Harbor Realty");
      await user.type(screen.getByLabelText("Work Email"), "grace@harbor.test");
      await user.clear(screen.getByLabelText("Number of Domains"));
      await user.type(screen.getByLabelText("Number of Domains"), "4");
      await user.type(screen.getByLabelText("First Name"), "Grace");
      await user.type(screen.getByLabelText("Last Name"), "Hopper");
      await user.click(screen.getByRole("button", { name: "Continue" }));
      await screen.findByRole("heading", { name: "Check your email to continue" });
      expect(screen.getByRole("status").textContent).toBe(TRIAL_VERIFICATION_MESSAGE);
      expect(screen.queryByRole("heading", { name: "Tell us about your organization" })).toBeNull();
      const called = f.calls.map((c) => c.url);
      expect(called).toContain("/api/create-trial-setup");
      expect(called.filter((u) => u !== "/api/billing/config" && u !== "/api/create-trial-setup")).toEqual([]);
    } finally {
      f.restore();
    }
  });

  test("the payment provider's return address for an account waiting for its link shows the same state", async () => {
    const f = withFetch(answers);
    try {
      renderApp("/trial?step=check-email&setup_intent=seti_1&redirect_status=succeeded");
      await screen.findByRole("heading", { name: "Check your email to continue" });
      expect(screen.getByRole("status").textContent).toBe(TRIAL_VERIFICATION_MESSAGE);
    } finally {
      f.restore();
    }
  });
});
