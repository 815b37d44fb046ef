import { describe, expect, test } from "bun:test";
import { fireEvent, screen } from "@testing-library/react";
import { PASSWORD_LINK_SENT_MESSAGE } from "../../../src/features/auth/contract";
import { cleanUpAfterEach, json, renderApp, withFetch } from "../../../tests/support/ui";

cleanUpAfterEach();

const signedOut = () => json({ error: { code: "unauthorized", message: "Please sign in" } }, 401);

describe("/login → Forgot password?", () => {
  test("carries the typed email over, sends the link request and shows the same answer for any address", async () => {
    const f = withFetch((url) => (url.endsWith("/api/auth/password-link") ? json({ success: true, message: PASSWORD_LINK_SENT_MESSAGE }) : signedOut()));
    renderApp("/login");
    await screen.findByRole("heading", { name: "Sign in" });
    fireEvent.input(screen.getByLabelText(/^Email/), { target: { value: "Pat@Example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Forgot password?" }));
    await screen.findByRole("heading", { name: "Reset your password" });
    expect((screen.getByLabelText(/^Email/) as HTMLInputElement).value).toBe("Pat@Example.com");
    fireEvent.click(screen.getByRole("button", { name: "Send link" }));
    await screen.findByRole("heading", { name: "Check your inbox" });
    expect(screen.getByText(PASSWORD_LINK_SENT_MESSAGE)).toBeTruthy();
    expect(screen.getByText(/You asked for pat@example.com\./)).toBeTruthy();
    const sent = f.calls.find((c) => c.url.endsWith("/api/auth/password-link"))!;
    expect(JSON.parse(String(sent.init.body))).toEqual({ email: "pat@example.com" });

    fireEvent.click(screen.getByRole("button", { name: "Back to sign in" }));
    await screen.findByRole("heading", { name: "Sign in" });
  });

  test("checks the address first, and shows the server's refusal (no mail configured)", async () => {
    const f = withFetch((url) =>
      url.endsWith("/api/auth/password-link") ? json({ error: { code: "mail_not_configured", message: "This server cannot send mail, so it cannot send password links." } }, 503) : signedOut(),
    );
    renderApp("/login?forgot=1");
    await screen.findByRole("heading", { name: "Reset your password" });
    fireEvent.click(screen.getByRole("button", { name: "Send link" }));
    await screen.findByText("Please enter a valid email address");
    expect(f.calls.some((c) => c.url.endsWith("/api/auth/password-link"))).toBe(false);
    fireEvent.input(screen.getByLabelText(/^Email/), { target: { value: "pat@example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Send link" }));
    expect((await screen.findByRole("alert")).textContent).toContain("This server cannot send mail");
  });
});
