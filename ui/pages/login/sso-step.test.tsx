import { describe, expect, test } from "bun:test";
import { fireEvent, screen } from "@testing-library/react";
import { SSO_ERRORS } from "../../../src/features/sso/contract";
import { cleanUpAfterEach, json, renderApp, withFetch } from "../../../tests/support/ui";

cleanUpAfterEach();

const signedOut = () => json({ error: { code: "unauthorized", message: "Please sign in" } }, 401);

describe("/login: Sign in with SSO", () => {
  test("asks for a work email or short name, says what the server says, and sends the email typed on the password form along", async () => {
    const f = withFetch((url) => {
      if (url.endsWith("/api/auth/sso/start")) return json({ error: { code: "not_found", message: "No organization here signs in with single sign-on for addresses at nowhere.test." } }, 404);
      if (url.endsWith("/api/auth/me")) return signedOut();
      return json({});
    });
    renderApp("/login?next=/app/domains");
    await screen.findByRole("heading", { name: "Sign in" });
    fireEvent.input(screen.getByLabelText(/^Email/), { target: { value: "zed@nowhere.test" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in with SSO" }));
    await screen.findByRole("heading", { name: "Sign in with SSO" });
    const field = screen.getByLabelText(/^Work email or organization short name/) as HTMLInputElement;
    expect(field.value).toBe("zed@nowhere.test");

    fireEvent.input(field, { target: { value: "  " } });
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    await screen.findByText("Enter your work email address or your organization's short name");
    expect(f.calls.some((c) => c.url.endsWith("/api/auth/sso/start"))).toBe(false);

    fireEvent.input(field, { target: { value: "zed@nowhere.test" } });
    fireEvent.click(screen.getByRole("button", { name: "Continue" }));
    expect((await screen.findByRole("alert")).textContent).toContain("nowhere.test");
    const sent = f.calls.filter((c) => c.url.endsWith("/api/auth/sso/start")).map((c) => JSON.parse(String(c.init.body)));
    expect(sent).toEqual([{ identifier: "zed@nowhere.test", next: "/app/domains" }]);

    fireEvent.click(screen.getByRole("button", { name: "Back to email and password" }));
    await screen.findByRole("heading", { name: "Sign in" });
  });

  test("back from the identity provider with a refusal: the reason in words, and the form to try again", async () => {
    withFetch((url) => (url.endsWith("/api/auth/me") ? signedOut() : json({})));
    renderApp("/login?sso_error=domain_not_allowed");
    await screen.findByRole("heading", { name: "Sign in with SSO" });
    expect(screen.getByRole("alert").textContent).toBe(SSO_ERRORS.domain_not_allowed);
  });

  test("back from the identity provider for an account with two-factor sign-in: the code step", async () => {
    withFetch((url) => (url.endsWith("/api/auth/me") ? signedOut() : json({})));
    renderApp("/login?sso=code&next=%2Fapp");
    await screen.findByRole("heading", { name: "Two-factor sign-in" });
  });
});
