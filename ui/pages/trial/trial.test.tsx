import { describe, expect, test } from "bun:test";
import { screen, within } from "@testing-library/react";
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
