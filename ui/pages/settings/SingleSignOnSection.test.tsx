import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { SingleSignOnSection } from "./SingleSignOnSection";

cleanUpAfterEach();

const REDIRECT = "https://dmarc.example.net/api/auth/sso/callback";
const record = (domain: string) => ({ name: `_dmarcwarden-verify.${domain}`, type: "TXT", value: `dmarcwarden-verify=token-of-${domain}` });
const domainsOf = (list: string[], proved: string[] = []) => list.map((domain) => ({ domain, status: proved.includes(domain) ? "proved" : "pending", record: record(domain) }));
const SAVED = {
  issuer: "https://login.example.com/tenant/v2.0",
  clientId: "app-123",
  hasClientSecret: true,
  allowedDomains: ["example.com", "example.org"],
  domains: domainsOf(["example.com", "example.org"], ["example.com"]),
  newUserRole: "member",
  enabled: true,
  updatedAt: "2026-01-01T00:00:00.000Z",
};

function server(options: { role?: string; connection?: any; saveError?: unknown; provable?: string[] } = {}) {
  let connection = options.connection ?? null;
  const f = withFetch((url, init) => {
    const method = init.method ?? "GET";
    if (url === "/api/auth/me") return json({ user: { id: "u", name: "Ada", email: "a@x" }, organizations: [], currentOrg: { id: "o", name: "Org", slug: "org", parentId: null, role: options.role ?? "owner" } });
    if (url === "/api/sso" && method === "GET") return json({ connection, redirectUri: REDIRECT, organizationSlug: "example-org" });
    if (url === "/api/sso" && method === "PUT") {
      if (options.saveError) return json(options.saveError, 400);
      const body = JSON.parse(String(init.body));
      const allowedDomains = String(body.allowedDomains).split(/,\s*/);
      connection = { ...SAVED, ...body, clientSecret: undefined, allowedDomains, domains: domainsOf(allowedDomains), hasClientSecret: true };
      return json(connection);
    }
    if (url === "/api/sso/domains/check" && method === "POST") {
      const pending = connection.domains.filter((d: { status: string }) => d.status === "pending").map((d: { domain: string }) => d.domain) as string[];
      const proved = pending.filter((d) => options.provable?.includes(d));
      connection = { ...connection, domains: domainsOf(connection.allowedDomains, [...connection.domains.filter((d: { status: string }) => d.status === "proved").map((d: { domain: string }) => d.domain), ...proved]) };
      return json({
        connection,
        results: pending.map((domain) => (proved.includes(domain) ? { domain, status: "proved", message: "Proved." } : { domain, status: "pending", message: `_dmarcwarden-verify.${domain} has no TXT record.` })),
      });
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

  test("each allowed domain's state: proved, or pending with its TXT record (name and value copyable); Check now proves the published ones", async () => {
    const calls = server({ connection: { ...SAVED, allowedDomains: ["example.com", "example.org", "example.net"], domains: domainsOf(["example.com", "example.org", "example.net"], ["example.com"]) }, provable: ["example.org"] });
    renderWithProviders(<SingleSignOnSection />);
    const proved = await screen.findByTestId("sso-domain-example.com");
    expect(proved.textContent).toContain("Proved");
    // a proved domain shows no record to publish
    expect(screen.queryByTestId("sso-proof-example.com")).toBeNull();
    expect(screen.getByTestId("sso-domain-example.org").textContent).toContain("Pending");
    expect(screen.getByTestId("sso-proof-example.org-name").textContent).toBe("_dmarcwarden-verify.example.org");
    expect(screen.getByTestId("sso-proof-example.org-value").textContent).toBe("dmarcwarden-verify=token-of-example.org");
    expect(screen.getAllByRole("button", { name: "Copy TXT record value" })).toHaveLength(2);

    await userEvent.setup().click(screen.getByRole("button", { name: "Check now" }));
    await waitFor(() => expect(screen.getByTestId("sso-domain-example.org").textContent).toContain("Proved"));
    expect(screen.queryByTestId("sso-proof-example.org")).toBeNull();
    // the one still pending says what was found
    expect(screen.getByTestId("sso-domain-example.net").textContent).toContain("_dmarcwarden-verify.example.net has no TXT record.");
    expect(calls.filter((c) => c.url === "/api/sso/domains/check" && c.init.method === "POST")).toHaveLength(1);
  });

  test("members and viewers do not see it", async () => {
    const calls = server({ role: "member" });
    const { container } = renderWithProviders(<SingleSignOnSection />);
    await waitFor(() => expect(calls.some((c) => c.url === "/api/auth/me")).toBe(true));
    expect(container.textContent).toBe("");
    expect(calls.some((c) => c.url === "/api/sso")).toBe(false);
  });
});
