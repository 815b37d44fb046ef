import { describe, expect, test } from "bun:test";
import { fireEvent, screen } from "@testing-library/react";
import { Route, Routes, useLocation } from "react-router";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import VerifyEmailPage from "./index";

cleanUpAfterEach();

const TOKEN = "tok_abcdefghijklmnopqrstuvwxyz0123456789";
const ME = { user: { id: "u1", name: "Pat", email: "pat@example.com" }, organizations: [], currentOrg: null, twoFactor: { enabled: true, required: false } };

function Landed() {
  return <p data-testid="landed">{useLocation().pathname}</p>;
}

describe("/verify-email", () => {
  test("for an account with two-factor sign-in on, the confirmed link leads to the code step; the code signs in", async () => {
    const f = withFetch((url) => {
      if (url.endsWith("/api/auth/verify-email")) return json({ twoFactorRequired: true });
      if (url.endsWith("/api/auth/login/2fa")) return json(ME);
      return json({ error: { code: "unauthorized", message: "Please sign in" } }, 401);
    });
    renderWithProviders(
      <Routes>
        <Route path="/verify-email" element={<VerifyEmailPage />} />
        <Route path="/app/dashboard" element={<Landed />} />
      </Routes>,
      `/verify-email?token=${TOKEN}`,
    );
    await screen.findByRole("heading", { name: "Two-factor sign-in" });
    expect(screen.queryByTestId("landed")).toBeNull();
    fireEvent.input(screen.getByLabelText(/^Authentication code/), { target: { value: "654321" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByTestId("landed")).textContent).toBe("/app/dashboard");
    expect(f.calls.filter((c) => c.url.endsWith("/api/auth/verify-email"))).toHaveLength(1);
  });
});
