import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { cleanup, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { json, renderApp, restoreFetch, withFetch } from "../../../tests/support/ui";
import { resetToasts } from "../../lib/toast";
import { WIZARD_STEPS } from "./Wizard";

let clipboard: string[] = [];
let originalClipboard: PropertyDescriptor | undefined;
beforeEach(() => {
  // signed out unless a test says otherwise
  withFetch(() => json({ error: { message: "Sign in" } }, 401));
  clipboard = [];
  originalClipboard = Object.getOwnPropertyDescriptor(navigator, "clipboard");
});

/** user-event installs its own clipboard stub on setup, so ours goes in after it. */
function setup(writeText: (text: string) => Promise<void> = async (text) => void clipboard.push(text)) {
  const user = userEvent.setup();
  Object.defineProperty(navigator, "clipboard", { configurable: true, value: { writeText } });
  return user;
}
afterEach(() => {
  cleanup();
  restoreFetch();
  resetToasts();
  if (originalClipboard) Object.defineProperty(navigator, "clipboard", originalClipboard);
});

const button = (name: string | RegExp) => screen.getByRole("button", { name }) as HTMLButtonElement;

async function fillDetails(user: ReturnType<typeof userEvent.setup>, labels: [RegExp, RegExp, RegExp], values = ["Riverside Clinic", "riverside-clinic.com", "admin@riverside-clinic.com"]) {
  for (let i = 0; i < 3; i++) await user.type(screen.getByLabelText(labels[i]!), values[i]!);
}

describe("setup wizards (SPEC §2/§4/§5)", () => {
  test("the wizard has 4 steps", () => {
    expect(WIZARD_STEPS).toBe(4);
  });

  test("healthcare: Previous disabled at step 1; Next disabled until name, domain and email are filled", async () => {
    const user = setup();
    renderApp("/onboarding/healthcare");
    expect(await screen.findByRole("heading", { level: 2, name: "Enter Your Practice Details" })).toBeTruthy();
    expect(button(/Previous/).disabled).toBe(true);
    expect(button(/Next/).disabled).toBe(true);
    await user.type(screen.getByLabelText(/Practice Name/), "Riverside Clinic");
    await user.type(screen.getByLabelText(/Practice Domain/), "riverside-clinic.com");
    expect(button(/Next/).disabled).toBe(true);
    await user.type(screen.getByLabelText(/Administrator Email/), "   ");
    expect(button(/Next/).disabled).toBe(true);
    await user.type(screen.getByLabelText(/Administrator Email/), "admin@riverside-clinic.com");
    expect(button(/Next/).disabled).toBe(false);
    expect((screen.getByLabelText(/Administrator Email/) as HTMLInputElement).type).toBe("email");
  });

  test("healthcare: steps 2-4 with SPEC's texts, copy toasts, and Start Monitoring → /trial on step 4", async () => {
    const user = setup();
    renderApp("/onboarding/healthcare");
    await screen.findByRole("heading", { level: 2, name: "Enter Your Practice Details" });
    expect(screen.getByText("HIPAA Compliance")).toBeTruthy();
    expect(screen.getByRole("link", { name: /Back to Demo/ }).getAttribute("href")).toBe("/demo");
    expect(button("Contact Support")).toBeTruthy();
    expect(button("HIPAA Compliance Guide")).toBeTruthy();
    await fillDetails(user, [/Practice Name/, /Practice Domain/, /Administrator Email/]);
    await user.click(button(/Next/));

    expect(await screen.findByRole("heading", { level: 2, name: "Configure SPF Record" })).toBeTruthy();
    expect(button(/Previous/).disabled).toBe(false);
    expect(screen.getByTestId("spf-value").textContent).toBe("v=spf1 include:_spf.google.com ~all");
    expect(screen.getByText(/HIPAA note:/)).toBeTruthy();
    expect(screen.getByText(/TXT record/, { selector: "strong" })).toBeTruthy();
    await user.click(button("Copy SPF record"));
    expect(clipboard).toEqual(["v=spf1 include:_spf.google.com ~all"]);
    expect(await screen.findByText("Copied to clipboard")).toBeTruthy();
    expect(screen.getByText("SPF record copied successfully")).toBeTruthy();
    await user.click(button(/Next/));

    expect(await screen.findByRole("heading", { level: 2, name: "Enable DKIM Authentication" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Google Workspace" })).toBeTruthy();
    expect(screen.getByRole("heading", { name: "Microsoft 365" })).toBeTruthy();
    await user.click(button(/Next/));

    expect(await screen.findByRole("heading", { level: 2, name: "Set Up DMARC Policy" })).toBeTruthy();
    expect(screen.getByTestId("dmarc-value").textContent).toBe("v=DMARC1; p=none; rua=mailto:dmarc@riverside-clinic.com");
    expect(screen.getAllByText("_dmarc").length).toBeGreaterThan(0);
    expect(screen.getAllByText(/DNS changes take 24-48 hours/).length).toBeGreaterThan(0);
    expect(screen.getByRole("heading", { name: "Setup Complete" })).toBeTruthy();
    await user.click(button("Copy DMARC record"));
    expect(clipboard.at(-1)).toBe("v=DMARC1; p=none; rua=mailto:dmarc@riverside-clinic.com");
    expect(await screen.findByText("DMARC record copied successfully")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Next/ })).toBeNull();
    expect(screen.getByRole("link", { name: /Start Monitoring/ }).getAttribute("href")).toBe("/trial");

    // Previous goes back and keeps what was entered.
    await user.click(button(/Previous/));
    await user.click(button(/Previous/));
    await user.click(button(/Previous/));
    await screen.findByRole("heading", { level: 2, name: "Enter Your Practice Details" });
    expect((screen.getByLabelText(/Practice Domain/) as HTMLInputElement).value).toBe("riverside-clinic.com");
    expect(button(/Previous/).disabled).toBe(true);
  });

  test("real estate: wire fraud banner, bulk sender in SPF, CRM advice, security@ DMARC, protection message and phone tip", async () => {
    const user = setup();
    renderApp("/onboarding/realestate");
    await screen.findByRole("heading", { level: 2, name: "Enter Your Agency Details" });
    expect(screen.getByText("Wire Fraud Alert")).toBeTruthy();
    expect(screen.getByText(/\$150M in annual losses/)).toBeTruthy();
    expect(button("Wire Fraud Prevention Guide")).toBeTruthy();
    expect(button("Contact Support")).toBeTruthy();
    await fillDetails(user, [/Agency Name/, /Agency Domain/, /Email Address/], ["Oak Street Realty", "oakstreet.com", "broker@oakstreet.com"]);
    await user.click(button(/Next/));
    expect(screen.getByTestId("spf-value").textContent).toBe("v=spf1 include:_spf.google.com include:sendgrid.net ~all");
    await user.click(button(/Next/));
    expect(screen.getByText(/CRM platforms:/)).toBeTruthy();
    await user.click(button(/Next/));
    expect(screen.getByTestId("dmarc-value").textContent).toBe("v=DMARC1; p=none; rua=mailto:security@oakstreet.com");
    expect(screen.getByText("Wire Fraud Protection Active")).toBeTruthy();
    expect(screen.getByText(/verify wire instructions by phone/)).toBeTruthy();
    expect(screen.getByRole("link", { name: /Start Monitoring/ }).getAttribute("href")).toBe("/trial");
  });

  test("professional: four steps, dmarc mailbox, links to /demo and /trial", async () => {
    const user = setup();
    renderApp("/onboarding/professional");
    await screen.findByRole("heading", { level: 2, name: "Enter Your Firm Details" });
    expect(screen.getByRole("link", { name: /Back to Demo/ }).getAttribute("href")).toBe("/demo");
    await fillDetails(user, [/Firm Name/, /Firm Domain/, /Email Address/], ["Whitfield & Partners", "whitfield.com", "it@whitfield.com"]);
    for (const title of ["Configure SPF Record", "Enable DKIM Authentication", "Set Up DMARC Policy"]) {
      await user.click(button(/Next/));
      expect(await screen.findByRole("heading", { level: 2, name: title })).toBeTruthy();
    }
    expect(screen.getByTestId("dmarc-value").textContent).toBe("v=DMARC1; p=none; rua=mailto:dmarc@whitfield.com");
    expect(screen.getByRole("link", { name: /Start Monitoring/ }).getAttribute("href")).toBe("/trial");
  });

  test("step 4 says monitoring has started, not that the domain is protected; signed in, it links to the domain's readiness panel", async () => {
    const me = { user: { id: "u1", name: "Ann", email: "ann@whitfield.com" }, currentOrgId: "o1", organizations: [] };
    const signedIn = withFetch((url) => (url.endsWith("/api/auth/me") ? json(me) : url.endsWith("/api/domains") ? json([{ id: "dom-1", name: "whitfield.com" }]) : json({ error: { message: "no" } }, 404)));
    try {
      const user = setup();
      renderApp("/onboarding/professional");
      await screen.findByRole("heading", { level: 2, name: "Enter Your Firm Details" });
      await fillDetails(user, [/Firm Name/, /Firm Domain/, /Email Address/], ["Whitfield & Partners", "whitfield.com", "it@whitfield.com"]);
      for (let i = 0; i < 3; i++) await user.click(button(/Next/));
      expect(screen.getByText("Monitoring has started; protection comes next")).toBeTruthy();
      expect(screen.getByText(/mail that fails DMARC is still delivered/)).toBeTruthy();
      const link = await screen.findByRole("link", { name: "Open the readiness panel of whitfield.com" });
      expect(link.getAttribute("href")).toBe("/app/domains/dom-1#readiness");
    } finally {
      signedIn.restore();
    }
    cleanup();
    // signed out (the stand-in of every test): the same words, no link into the app
    const user = setup();
    renderApp("/onboarding/professional");
    await screen.findByRole("heading", { level: 2, name: "Enter Your Firm Details" });
    await fillDetails(user, [/Firm Name/, /Firm Domain/, /Email Address/], ["Whitfield & Partners", "whitfield.com", "it@whitfield.com"]);
    for (let i = 0; i < 3; i++) await user.click(button(/Next/));
    expect(screen.getByText("Monitoring has started; protection comes next")).toBeTruthy();
    expect(screen.queryByRole("link", { name: /readiness/ })).toBeNull();
  });

  test("signed in, step 4's record carries the organization's own report address (receiver on) with the §7.1 record; signed out, SPEC's sample", async () => {
    const me = { user: { id: "u1", name: "Ann", email: "ann@whitfield.com" }, currentOrgId: "o1", organizations: [] };
    const address = "tok123@reports.dw.test";
    const path = { domain: "whitfield.com", mode: "receiver", routes: [{ kind: "receiver", address, rua: `mailto:${address}`, external: { host: "reports.dw.test", name: "whitfield.com._report._dmarc.reports.dw.test", value: "v=DMARC1" } }] };
    const signedIn = withFetch((url) =>
      url.endsWith("/api/auth/me") ? json(me) : url.endsWith("/api/domains") ? json([]) : url === "/api/report-path?domain=whitfield.com" ? json(path) : json({ error: { message: "no" } }, 404),
    );
    try {
      const user = setup();
      renderApp("/onboarding/professional");
      await screen.findByRole("heading", { level: 2, name: "Enter Your Firm Details" });
      await fillDetails(user, [/Firm Name/, /Firm Domain/, /Email Address/], ["Whitfield & Partners", "whitfield.com", "it@whitfield.com"]);
      for (let i = 0; i < 3; i++) await user.click(button(/Next/));
      await waitFor(() => expect(screen.getByTestId("dmarc-value").textContent).toBe(`v=DMARC1; p=none; rua=mailto:${address}`));
      expect(screen.getByTestId("external-record").textContent).toBe('whitfield.com._report._dmarc.reports.dw.test TXT "v=DMARC1"');
    } finally {
      signedIn.restore();
    }
  });

  test("Start Monitoring carries the name, domain and email to /trial, which fills them in and says the domain is added once the account exists", async () => {
    sessionStorage.clear();
    restoreFetch();
    withFetch((url) => (url.endsWith("/api/billing/config") ? json({ enabled: false, publishableKey: null }) : json({ error: { message: "Sign in" } }, 401)));
    const user = setup();
    renderApp("/onboarding/healthcare");
    await screen.findByRole("heading", { level: 2, name: "Enter Your Practice Details" });
    await fillDetails(user, [/Practice Name/, /Practice Domain/, /Administrator Email/]);
    for (let i = 0; i < 3; i++) await user.click(button(/Next/));
    await user.click(screen.getByRole("link", { name: /Start Monitoring/ }));
    await user.click(await screen.findByRole("button", { name: "Continue" }));
    expect(((await screen.findByLabelText("Company Name")) as HTMLInputElement).value).toBe("Riverside Clinic");
    expect((screen.getByLabelText("Work Email") as HTMLInputElement).value).toBe("admin@riverside-clinic.com");
    expect(document.querySelector("[data-carried-domain]")!.textContent).toContain("riverside-clinic.com from your setup guide is added to your domains");
    expect(screen.getByText(/This adds none: you add each domain on the Domains page/)).toBeTruthy();
    sessionStorage.clear();
  });

  test("a blocked clipboard says so instead of claiming success", async () => {
    const user = setup(async () => Promise.reject(new Error("denied")));
    renderApp("/onboarding/professional");
    await screen.findByRole("heading", { level: 2, name: "Enter Your Firm Details" });
    await fillDetails(user, [/Firm Name/, /Firm Domain/, /Email Address/]);
    await user.click(button(/Next/));
    await user.click(button("Copy SPF record"));
    await waitFor(() => expect(screen.getByText("Copy failed")).toBeTruthy());
    expect(screen.queryByText("Copied to clipboard")).toBeNull();
  });
});
