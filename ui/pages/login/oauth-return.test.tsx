import { describe, expect, test } from "bun:test";
import { fireEvent, screen } from "@testing-library/react";
import { Route, Routes, useLocation } from "react-router";
import { OAUTH_SIGNED_OUT_LOCATION, OAUTH_SIGNED_OUT_MESSAGE } from "../../../src/features/mailin/oauth-contract";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import LoginPage from "./index";

cleanUpAfterEach();

const ME = { user: { id: "u1", name: "Pat", email: "pat@example.com" }, organizations: [], currentOrg: null, twoFactor: { enabled: false, required: false } };

function Landed() {
  const { pathname, search, hash } = useLocation();
  return <p data-testid="landed">{pathname + search + hash}</p>;
}

describe("/login after the session ended during a mailbox connection", () => {
  test("says why, and after signing in goes to Settings' report mail to connect again", async () => {
    withFetch((url) => (url.endsWith("/api/auth/login") ? json(ME) : json({ error: { code: "unauthorized", message: "Please sign in" } }, 401)));
    renderWithProviders(
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="/app/settings" element={<Landed />} />
      </Routes>,
      OAUTH_SIGNED_OUT_LOCATION,
    );
    expect((await screen.findByRole("status")).textContent).toBe(OAUTH_SIGNED_OUT_MESSAGE);
    fireEvent.input(screen.getByLabelText(/^Email/), { target: { value: "pat@example.com" } });
    fireEvent.input(screen.getByLabelText(/^Password/), { target: { value: "a long enough password" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByTestId("landed")).textContent).toBe("/app/settings?oauth_mailbox=signed_out#report-mail");
  });

  test("the plain sign-in page shows no notice, nor for an unknown one", async () => {
    withFetch(() => json({ error: { code: "unauthorized", message: "Please sign in" } }, 401));
    renderWithProviders(<LoginPage />, "/login?notice=%3Cscript%3E");
    await screen.findByRole("heading", { name: "Sign in" });
    expect(screen.queryByRole("status")).toBeNull();
  });
});
