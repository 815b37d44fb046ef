import { describe, expect, test } from "bun:test";
import { fireEvent, screen } from "@testing-library/react";
import { cleanUpAfterEach, json, renderApp, withFetch } from "../../../tests/support/ui";

cleanUpAfterEach();

const signedOut = () => json({ error: { code: "unauthorized", message: "Please sign in" } }, 401);
const ME = { user: { id: "u1", name: "Pat", email: "pat@example.com" }, organizations: [], currentOrg: null, twoFactor: { enabled: true, required: false } };

describe("/login with two-factor sign-in", () => {
  test("a right password leads to the code step; a wrong code shows the server's words; a recovery code can be used instead", async () => {
    let signedIn = false;
    const f = withFetch((url, init) => {
      if (url.endsWith("/api/auth/login")) return json({ twoFactorRequired: true });
      if (url.endsWith("/api/auth/login/2fa")) {
        const { code } = JSON.parse(String(init.body));
        if (code !== "abcde-fghjk") return json({ error: { code: "unauthorized", message: "That code is not right. Enter the 6-digit code your authenticator app shows now." } }, 401);
        signedIn = true;
        return json(ME);
      }
      if (url.endsWith("/api/auth/me")) return signedIn ? json(ME) : signedOut();
      return json({});
    });
    renderApp("/login?next=/contact");
    await screen.findByRole("heading", { name: "Sign in" });
    fireEvent.input(screen.getByLabelText(/^Email/), { target: { value: "pat@example.com" } });
    fireEvent.input(screen.getByLabelText(/^Password/), { target: { value: "a long enough password" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await screen.findByRole("heading", { name: "Two-factor sign-in" });

    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    await screen.findByText("Enter the 6-digit code from your authenticator app");
    expect(f.calls.some((c) => c.url.endsWith("/api/auth/login/2fa"))).toBe(false);

    fireEvent.input(screen.getByLabelText(/^Authentication code/), { target: { value: "123456" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect((await screen.findByRole("alert")).textContent).toContain("That code is not right");

    fireEvent.click(screen.getByRole("button", { name: "Lost your phone? Use a recovery code" }));
    fireEvent.input(screen.getByLabelText(/^Recovery code/), { target: { value: "abcde-fghjk" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    await screen.findByRole("button", { name: "Send Message" });
    const sent = f.calls.filter((c) => c.url.endsWith("/api/auth/login/2fa")).map((c) => JSON.parse(String(c.init.body)).code);
    expect(sent).toEqual(["123456", "abcde-fghjk"]);
    expect(signedIn).toBe(true);
  });
});
