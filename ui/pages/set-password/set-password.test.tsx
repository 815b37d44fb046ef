import { describe, expect, test } from "bun:test";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { Route, Routes, useLocation } from "react-router";
import { cleanUpAfterEach, json, renderApp, renderWithProviders, withFetch } from "../../../tests/support/ui";
import SetPasswordPage from "./index";

cleanUpAfterEach();

const TOKEN = "tok_abcdefghijklmnopqrstuvwxyz0123456789";
const ME = { user: { id: "u1", name: "Pat Reset", email: "pat@example.com" }, organizations: [], currentOrg: null };
const bodyOf = (init: RequestInit) => JSON.parse(String(init.body ?? "{}"));

describe("/set-password", () => {
  test("shows the account, checks the two passwords, sets it and signs in", async () => {
    const f = withFetch((url, init) => {
      if (url.endsWith("/api/auth/password-link/lookup")) return json({ email: "pat@example.com" });
      if (url.endsWith("/api/auth/reset-password")) return json(ME);
      return json({ error: { code: "unauthorized", message: "Please sign in" } }, 401);
    });
    renderApp(`/set-password?token=${TOKEN}`);
    await screen.findByText("pat@example.com");
    expect(screen.getByRole("heading", { name: "Set your password" })).toBeTruthy();

    fireEvent.input(screen.getByLabelText(/^New password/), { target: { value: "short" } });
    fireEvent.click(screen.getByRole("button", { name: "Set password and sign in" }));
    await screen.findByText("Password must be at least 10 characters");

    fireEvent.input(screen.getByLabelText(/^New password/), { target: { value: "a long new password" } });
    fireEvent.input(screen.getByLabelText(/^Repeat the new password/), { target: { value: "a long new passwort" } });
    fireEvent.click(screen.getByRole("button", { name: "Set password and sign in" }));
    await screen.findByText("The two passwords are not the same");
    expect(f.calls.some((c) => c.url.endsWith("/api/auth/reset-password"))).toBe(false);

    fireEvent.input(screen.getByLabelText(/^Repeat the new password/), { target: { value: "a long new password" } });
    fireEvent.click(screen.getByRole("button", { name: "Set password and sign in" }));
    await screen.findByText("Password set");
    const reset = f.calls.find((c) => c.url.endsWith("/api/auth/reset-password"))!;
    expect(bodyOf(reset.init)).toEqual({ token: TOKEN, password: "a long new password" });
  });

  test("with two-factor sign-in on, setting the password leads to the code step; the code signs in", async () => {
    const f = withFetch((url, init) => {
      if (url.endsWith("/api/auth/password-link/lookup")) return json({ email: "pat@example.com" });
      if (url.endsWith("/api/auth/reset-password")) return json({ twoFactorRequired: true });
      if (url.endsWith("/api/auth/login/2fa"))
        return bodyOf(init).code === "654321" ? json({ ...ME, twoFactor: { enabled: true, required: false } }) : json({ error: { code: "unauthorized", message: "That code is not right." } }, 401);
      return json({ error: { code: "unauthorized", message: "Please sign in" } }, 401);
    });
    function Landed() {
      return <p data-testid="landed">{useLocation().pathname}</p>;
    }
    renderWithProviders(
      <Routes>
        <Route path="/set-password" element={<SetPasswordPage />} />
        <Route path="/app/dashboard" element={<Landed />} />
      </Routes>,
      `/set-password?token=${TOKEN}`,
    );
    await screen.findByText("pat@example.com");
    for (const label of [/^New password/, /^Repeat the new password/]) fireEvent.input(screen.getByLabelText(label), { target: { value: "a long new password" } });
    fireEvent.click(screen.getByRole("button", { name: "Set password and sign in" }));
    await screen.findByRole("heading", { name: "Two-factor sign-in" });
    expect(screen.queryByTestId("landed")).toBeNull();

    fireEvent.input(screen.getByLabelText(/^Authentication code/), { target: { value: "111111" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByRole("alert")).textContent).toContain("That code is not right");
    fireEvent.input(screen.getByLabelText(/^Authentication code/), { target: { value: "654321" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByTestId("landed")).textContent).toBe("/app/dashboard");
    expect(f.calls.filter((c) => c.url.endsWith("/api/auth/login/2fa")).map((c) => bodyOf(c.init).code)).toEqual(["111111", "654321"]);
  });

  test("a used or expired link says so and offers a new one", async () => {
    withFetch((url) =>
      url.endsWith("/api/auth/password-link/lookup")
        ? json({ error: { code: "not_found", message: "This link is not valid any more: it was used already or has expired. Ask for a new one from the sign-in page." } }, 404)
        : json({ error: { code: "unauthorized", message: "Please sign in" } }, 401),
    );
    renderApp(`/set-password?token=${TOKEN}`);
    await screen.findByRole("heading", { name: "This link does not work" });
    expect(screen.getByText(/used already or has expired/)).toBeTruthy();
    expect(screen.getByRole("link", { name: "Ask for a new link" }).getAttribute("href")).toBe("/login?forgot=1");
  });

  test("without a token", async () => {
    withFetch(() => json({ error: { code: "unauthorized", message: "Please sign in" } }, 401));
    renderApp("/set-password");
    await screen.findByRole("heading", { name: "This link does not work" });
  });

  test("the server's password rule shows beside the field", async () => {
    withFetch((url) => {
      if (url.endsWith("/api/auth/password-link/lookup")) return json({ email: "pat@example.com" });
      if (url.endsWith("/api/auth/reset-password")) return json({ error: { code: "validation_failed", message: "Invalid input", fields: { password: "Password must not be your email address" } } }, 400);
      return json({}, 401);
    });
    renderApp(`/set-password?token=${TOKEN}`);
    await screen.findByText("pat@example.com");
    for (const label of [/^New password/, /^Repeat the new password/]) fireEvent.input(screen.getByLabelText(label), { target: { value: "pat@example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Set password and sign in" }));
    await screen.findByText("Password must not be your email address");
    await waitFor(() => expect(screen.queryByRole("link", { name: "Ask for a new link" })).toBeNull());
  });
});
