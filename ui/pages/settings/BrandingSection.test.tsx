import { describe, expect, test } from "bun:test";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { BrandingSection } from "./BrandingSection";

cleanUpAfterEach();

const ME = { user: { id: "u", name: "Mia", email: "mia@msp.example" }, organizations: [], currentOrg: { id: "o", name: "Acme MSP", slug: "acme-msp", parentId: null, role: "owner" } };
const branding = (customHostname: string | null) => ({
  productName: "Acme Mail Shield",
  primaryColor: "#ff6600",
  supportEmail: null,
  logoUrl: null,
  source: "own",
  own: { productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: null, logoUrl: null },
  customHostname,
  canEdit: true,
  planAllows: true,
  isClient: false,
});

describe("Settings → White-label: custom hostname", () => {
  test("is saved with the branding; the clients' sign-in link then uses it; a taken name is said at the field", async () => {
    let taken = false;
    const f = withFetch((url, init) => {
      if (url === "/api/auth/me") return json(ME);
      if (url === "/api/branding" && (init.method ?? "GET") === "GET") return json(branding(null));
      if (url === "/api/branding" && init.method === "PUT") {
        const body = JSON.parse(String(init.body));
        if (taken) return json({ error: { code: "conflict", message: "Another organization already uses this hostname.", fields: { customHostname: "Another organization already uses this hostname." } } }, 409);
        return json(branding(body.customHostname || null));
      }
      return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
    });
    renderWithProviders(<BrandingSection />, "/app/settings");
    const field = (await screen.findByLabelText(/^Custom hostname/)) as HTMLInputElement;
    expect(field.value).toBe("");
    expect(screen.getByTestId("branding-login-link").textContent).toContain("/login?brand=acme-msp");

    fireEvent.change(field, { target: { value: "dmarc.msp-example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Save branding" }));
    await waitFor(() => expect(screen.getByTestId("branding-login-link").textContent).toBe("https://dmarc.msp-example.com/login"));
    const sent = f.calls.filter((c) => c.init.method === "PUT").map((c) => JSON.parse(String(c.init.body)));
    expect(sent).toEqual([{ productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "", customHostname: "dmarc.msp-example.com" }]);

    taken = true;
    fireEvent.change(screen.getByLabelText(/^Custom hostname/), { target: { value: "dmarc.other.example" } });
    fireEvent.click(screen.getByRole("button", { name: "Save branding" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Another organization already uses this hostname.");
    expect(screen.getAllByText("Another organization already uses this hostname.").length).toBeGreaterThanOrEqual(2);
  });
});
