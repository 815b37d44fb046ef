import { describe, expect, test } from "bun:test";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { BrandingSection } from "./BrandingSection";

cleanUpAfterEach();

const ME = { user: { id: "u", name: "Mia", email: "mia@msp.example" }, organizations: [], currentOrg: { id: "o", name: "Acme MSP", slug: "acme-msp", parentId: null, role: "owner" } };
type Status = "pending" | "verified" | "failed";
const branding = (customHostname: string | null, status: Status = "pending", checkedAt: string | null = null) => ({
  productName: "Acme Mail Shield",
  primaryColor: "#ff6600",
  supportEmail: null,
  logoUrl: null,
  source: "own",
  own: { productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: null, logoUrl: null },
  customHostname,
  customHostnameStatus: customHostname ? status : null,
  customHostnameCheckedAt: customHostname ? checkedAt : null,
  customHostnameRecord: customHostname ? `${customHostname} CNAME dw.example.test.` : null,
  customHostnameProof: customHostname ? { name: `_dmarcwarden-verify.${customHostname}`, type: "TXT", value: "dmarcwarden-verify=Zm9vYmFyYmF6cXV4" } : null,
  customHostnameMessage: customHostname ? "Publish this DNS record at your DNS provider, then verify. Until then the hostname is not used." : null,
  canEdit: true,
  planAllows: true,
  isClient: false,
});

describe("Settings → White-label: custom hostname", () => {
  test("is saved with the branding; the clients' sign-in link uses it once verified; a taken name is said at the field", async () => {
    let taken = false;
    let saved: string | null = null;
    let verifyAnswer: { customHostname: string; status: Status; checkedAt: string; message: string } | null = null;
    let checked: { status: Status; checkedAt: string } | null = null;
    const f = withFetch((url, init) => {
      if (url === "/api/auth/me") return json(ME);
      if (url === "/api/branding" && (init.method ?? "GET") === "GET") return json(branding(saved, checked?.status, checked?.checkedAt));
      if (url === "/api/branding" && init.method === "PUT") {
        const body = JSON.parse(String(init.body));
        if (taken) return json({ error: { code: "conflict", message: "Another organization already uses this hostname.", fields: { customHostname: "Another organization already uses this hostname." } } }, 409);
        saved = body.customHostname || null;
        return json(branding(saved));
      }
      if (url === "/api/branding/hostname/verify" && init.method === "POST") {
        checked = { status: verifyAnswer!.status, checkedAt: verifyAnswer!.checkedAt };
        return json(verifyAnswer);
      }
      return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
    });
    renderWithProviders(<BrandingSection />, "/app/settings");
    const field = (await screen.findByLabelText(/^Custom hostname/)) as HTMLInputElement;
    expect(field.value).toBe("");
    expect(screen.getByTestId("branding-login-link").textContent).toContain("/login?brand=acme-msp");

    fireEvent.change(field, { target: { value: "dmarc.msp-example.com" } });
    fireEvent.click(screen.getByRole("button", { name: "Save branding" }));
    // saved: pending, with the record to publish; the link keeps ?brand= until it is verified
    expect((await screen.findByTestId("hostname-status")).textContent).toBe("Pending");
    expect(screen.getByTestId("hostname-record").textContent).toBe("dmarc.msp-example.com CNAME dw.example.test.");
    expect(screen.getByRole("button", { name: "Copy DNS record" })).toBeTruthy();
    // and the TXT record proving the name is the organization's, name and value each copyable
    expect(screen.getByTestId("hostname-proof-name").textContent).toBe("_dmarcwarden-verify.dmarc.msp-example.com");
    expect(screen.getByTestId("hostname-proof-value").textContent).toBe("dmarcwarden-verify=Zm9vYmFyYmF6cXV4");
    expect(screen.getByRole("button", { name: "Copy TXT record name" })).toBeTruthy();
    expect(screen.getByRole("button", { name: "Copy TXT record value" })).toBeTruthy();
    expect(screen.getByTestId("branding-login-link").textContent).toContain("/login?brand=acme-msp");
    const sent = f.calls.filter((c) => c.init.method === "PUT").map((c) => JSON.parse(String(c.init.body)));
    expect(sent).toEqual([{ productName: "Acme Mail Shield", primaryColor: "#ff6600", supportEmail: "", customHostname: "dmarc.msp-example.com" }]);

    // Verify: a wrong record first (failed, with the message), then the right one
    verifyAnswer = { customHostname: "dmarc.msp-example.com", status: "failed", checkedAt: new Date().toISOString(), message: "dmarc.msp-example.com is a CNAME to elsewhere.example.net, not to dw.example.test. Publish this DNS record: dmarc.msp-example.com CNAME dw.example.test." };
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(screen.getByTestId("hostname-status").textContent).toBe("Failed"));
    expect(screen.getByTestId("hostname-message").textContent).toContain("is a CNAME to elsewhere.example.net");
    expect(screen.getByTestId("branding-login-link").textContent).toContain("/login?brand=acme-msp");
    verifyAnswer = { customHostname: "dmarc.msp-example.com", status: "verified", checkedAt: new Date().toISOString(), message: "Verified: dmarc.msp-example.com is a CNAME to dw.example.test." };
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(screen.getByTestId("branding-login-link").textContent).toBe("https://dmarc.msp-example.com/login"));
    expect(screen.getByTestId("hostname-status").textContent).toBe("Verified");
    expect(screen.getByRole("button", { name: "Verify again" })).toBeTruthy();
    expect(f.calls.filter((c) => c.url === "/api/branding/hostname/verify" && c.init.method === "POST").length).toBe(2);

    taken = true;
    fireEvent.change(screen.getByLabelText(/^Custom hostname/), { target: { value: "dmarc.other.example" } });
    fireEvent.click(screen.getByRole("button", { name: "Save branding" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Another organization already uses this hostname.");
    expect(screen.getAllByText("Another organization already uses this hostname.").length).toBeGreaterThanOrEqual(2);
  });
});
