import { describe, expect, test } from "bun:test";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { cleanUpAfterEach, json, renderApp, withFetch } from "../../../tests/support/ui";

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
