import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { SingleSignOnSection } from "./SingleSignOnSection";

cleanUpAfterEach();

const REDIRECT = "https://dmarc.example.net/api/auth/sso/callback";
const SAVED = { issuer: "https://login.example.com/tenant/v2.0", clientId: "app-123", hasClientSecret: true, allowedDomains: ["example.com", "example.org"], newUserRole: "member", enabled: true, updatedAt: "2026-01-01T00:00:00.000Z" };

function server(options: { role?: string; connection?: unknown; saveError?: unknown } = {}) {
  let connection = options.connection ?? null;
  const f = withFetch((url, init) => {
    const method = init.method ?? "GET";
    if (url === "/api/auth/me") return json({ user: { id: "u", name: "Ada", email: "a@x" }, organizations: [], currentOrg: { id: "o", name: "Org", slug: "org", parentId: null, role: options.role ?? "owner" } });
    if (url === "/api/sso" && method === "GET") return json({ connection, redirectUri: REDIRECT, organizationSlug: "example-org" });
    if (url === "/api/sso" && method === "PUT") {
      if (options.saveError) return json(options.saveError, 400);
      const body = JSON.parse(String(init.body));
      connection = { ...SAVED, ...body, clientSecret: undefined, allowedDomains: String(body.allowedDomains).split(/,\s*/), hasClientSecret: true };
      return json(connection);
    }
    return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
  });
  return f.calls;
}

describe("SingleSignOnSection", () => {
  test("a first set-up: the redirect URI to register and the short name, then every field sent once", async () => {
    const calls = server();
    renderWithProviders(<SingleSignOnSection />);
    expect((await screen.findByTestId("sso-redirect-uri")).textContent).toBe(REDIRECT);
    expect(screen.getByText("example-org")).toBeTruthy();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/^Issuer URL/), "https://login.example.com/tenant/v2.0");
    await user.type(screen.getByLabelText(/^Client ID/), "app-123");
    await user.type(screen.getByLabelText(/^Client secret/), "s3cret-value");
    await user.type(screen.getByLabelText(/^Allowed email domains/), "example.com, example.org");
    await user.selectOptions(screen.getByLabelText(/^Role for new users/), "member");
    await user.click(screen.getByRole("button", { name: "Save single sign-on" }));
    await screen.findByText("A secret is stored. Leave this empty to keep it.");
    const put = calls.filter((c) => c.init.method === "PUT").map((c) => JSON.parse(String(c.init.body)));
    expect(put).toEqual([{ issuer: "https://login.example.com/tenant/v2.0", clientId: "app-123", clientSecret: "s3cret-value", allowedDomains: "example.com, example.org", newUserRole: "member", enabled: true }]);
    expect((screen.getByLabelText(/^Client secret/) as HTMLInputElement).value).toBe("");
  });

  test("a saved connection: the secret is left out unless typed again; the server's field errors show at their fields", async () => {
    const calls = server({ connection: SAVED, saveError: { error: { code: "validation_failed", message: "Could not read the identity provider's settings.", fields: { issuer: "Could not read the identity provider's settings from this issuer URL" } } } });
    renderWithProviders(<SingleSignOnSection />);
    await waitFor(() => expect((screen.getByLabelText(/^Issuer URL/) as HTMLInputElement).value).toBe(SAVED.issuer));
    expect((screen.getByLabelText(/^Allowed email domains/) as HTMLInputElement).value).toBe("example.com, example.org");
    await userEvent.setup().click(screen.getByRole("button", { name: "Save single sign-on" }));
    expect(await screen.findByText("Could not read the identity provider's settings from this issuer URL")).toBeTruthy();
    const put = calls.filter((c) => c.init.method === "PUT").map((c) => JSON.parse(String(c.init.body)));
    expect(put).toHaveLength(1);
    expect("clientSecret" in put[0]).toBe(false);
  });

  test("members and viewers do not see it", async () => {
    const calls = server({ role: "member" });
    const { container } = renderWithProviders(<SingleSignOnSection />);
    await waitFor(() => expect(calls.some((c) => c.url === "/api/auth/me")).toBe(true));
    expect(container.textContent).toBe("");
    expect(calls.some((c) => c.url === "/api/sso")).toBe(false);
  });
});
