import { afterEach, describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { saveWizardDetails, wizardDetails } from "../../lib/wizard-handoff";
import SignupPage from "./index";

cleanUpAfterEach();
afterEach(() => sessionStorage.clear());

describe("/signup after a setup wizard", () => {
  test("the wizard's organization and email are filled in, and its domain is added once the account exists", async () => {
    saveWizardDetails({ name: "Riverside Clinic", domain: "riverside-clinic.com", email: "admin@riverside-clinic.com" });
    const f = withFetch((url) =>
      url === "/api/auth/signup"
        ? json({ user: { id: "u", name: "Ann", email: "admin@riverside-clinic.com" }, currentOrg: { id: "o", name: "Riverside Clinic", role: "owner" }, organizations: [] }, 201)
        : url === "/api/domains"
          ? json({ id: "d1", name: "riverside-clinic.com" }, 201)
          : json({ error: { message: "no" } }, 404),
    );
    const user = userEvent.setup();
    renderWithProviders(
      <Routes>
        <Route path="/signup" element={<SignupPage />} />
        <Route path="/app/dashboard" element={<p>app home</p>} />
      </Routes>,
      "/signup",
    );
    expect(((await screen.findByLabelText("Organization name")) as HTMLInputElement).value).toBe("Riverside Clinic");
    expect((screen.getByLabelText("Email") as HTMLInputElement).value).toBe("admin@riverside-clinic.com");
    expect(document.querySelector("[data-carried-domain]")!.textContent).toContain("riverside-clinic.com from your setup guide is added");
    await user.type(screen.getByLabelText("Your name"), "Ann Lee");
    await user.type(screen.getByLabelText(/Password/), "a long enough password");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await screen.findByText("app home");
    const added = f.calls.find((c) => c.url === "/api/domains" && c.init.method === "POST");
    expect(JSON.parse(String(added!.init.body))).toEqual({ name: "riverside-clinic.com" });
    await waitFor(() => expect(wizardDetails()).toBeNull());
  });
});
