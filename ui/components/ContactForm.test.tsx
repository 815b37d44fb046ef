import { describe, expect, test } from "bun:test";
import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { cleanUpAfterEach, renderApp, renderWithProviders, withFetch } from "../../tests/support/ui";
import { ContactDialog } from "./ContactDialog";

cleanUpAfterEach();

function answer(status: number, body: unknown = { success: true, id: "abc" }) {
  const f = withFetch(() => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } }));
  return f.calls;
}

/** Answers once the test says so, to observe the Sending... state. */
function deferredAnswer() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const f = withFetch(async () => {
    await gate;
    return new Response(JSON.stringify({ success: true, id: "abc" }), { status: 201 });
  });
  return { calls: f.calls, release };
}

async function fillValid(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/Full Name/), "Dana Whitfield");
  await user.type(screen.getByLabelText(/Email Address/), "dana@whitfield.example");
  await user.type(screen.getByLabelText(/^Company/), "Whitfield Law");
  await user.type(screen.getByLabelText(/^Subject/), "Pricing for our firm");
  await user.type(screen.getByLabelText(/^Message/), "We would like to protect four domains from spoofing.");
}

function DialogHarness() {
  const [open, setOpen] = useState(true);
  return (
    <>
      <p>dialog is {open ? "open" : "closed"}</p>
      <ContactDialog open={open} onOpenChange={setOpen} />
    </>
  );
}

describe("contact form (SPEC §3/§5)", () => {
  test("shows every validation message of SPEC §5 and sends nothing", async () => {
    const calls = answer(201);
    const user = userEvent.setup();
    renderApp("/contact");
    await screen.findByRole("heading", { name: "Contact Us" });
    await user.type(screen.getByLabelText(/Full Name/), "D");
    await user.type(screen.getByLabelText(/Email Address/), "not-an-email");
    await user.type(screen.getByLabelText(/^Company/), "W");
    await user.type(screen.getByLabelText(/^Subject/), "Hi");
    await user.type(screen.getByLabelText(/^Message/), "Too short.");
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    for (const message of [
      "Name must be at least 2 characters",
      "Please enter a valid email address",
      "Company name is required",
      "Subject must be at least 5 characters",
      "Message must be at least 20 characters",
    ])
      expect(await screen.findByText(message)).toBeTruthy();
    expect(screen.getByLabelText(/Full Name/).getAttribute("aria-invalid")).toBe("true");
    expect(calls).toHaveLength(0);
  });

  test("request type offers the six values and defaults to support; phone and domains are optional", async () => {
    renderApp("/contact");
    const select = (await screen.findByLabelText(/Request Type/)) as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual(["support", "sales", "technical", "billing", "partnership", "other"]);
    expect(select.value).toBe("support");
    expect(screen.getByLabelText(/Phone/).closest("div")!.textContent).toContain("optional");
    expect(screen.getByLabelText(/Domains/).closest("div")!.textContent).toContain("optional");
  });

  test("page: Sending... while the request runs, then the confirmation with Return to Home and the success toast", async () => {
    const { calls, release } = deferredAnswer();
    const user = userEvent.setup();
    renderApp("/contact");
    await screen.findByRole("heading", { name: "Contact Us" });
    await fillValid(user);
    await user.selectOptions(screen.getByLabelText(/Request Type/), "sales");
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    const sending = await screen.findByRole("button", { name: "Sending..." });
    expect((sending as HTMLButtonElement).disabled).toBe(true);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.url).toBe("/api/contact");
    expect(calls[0]!.init.method).toBe("POST");
    expect(calls[0]!.init.credentials).toBe("include");
    expect(JSON.parse(String(calls[0]!.init.body))).toMatchObject({ name: "Dana Whitfield", requestType: "sales", company: "Whitfield Law" });
    await act(async () => release());
    expect(await screen.findByRole("heading", { name: "Message Sent" })).toBeTruthy();
    expect(screen.getByRole("link", { name: "Return to Home" }).getAttribute("href")).toBe("/");
    expect(await screen.findByText("Message Sent Successfully")).toBeTruthy();
    expect(screen.getByText("We'll get back to you within 24 hours.")).toBeTruthy();
  });

  test("page header links to / and /trial", async () => {
    renderApp("/contact");
    await screen.findByRole("heading", { name: "Contact Us" });
    const nav = screen.getByRole("navigation", { name: "Site" });
    expect(within(nav).getByRole("link", { name: "Back to Home" }).getAttribute("href")).toBe("/");
    expect(within(nav).getByRole("link", { name: "Start Free Trial" }).getAttribute("href")).toBe("/trial");
    // full labels at every width: nothing hidden on phones
    expect(nav.querySelector(".hidden, .sm\\:hidden")).toBeNull();
  });

  test("failure: stays on the filled form with the failure toast", async () => {
    answer(500, { error: { code: "internal_error", message: "boom" } });
    const user = userEvent.setup();
    renderApp("/contact");
    await screen.findByRole("heading", { name: "Contact Us" });
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByText("Failed to Send Message")).toBeTruthy();
    expect(screen.getByText("Please try again in a moment.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Send Message" })).toBeTruthy();
    expect((screen.getByLabelText(/Full Name/) as HTMLInputElement).value).toBe("Dana Whitfield");
    expect(screen.queryByRole("heading", { name: "Message Sent" })).toBeNull();
  });

  test("a server field message is shown beside its field", async () => {
    answer(400, { error: { code: "validation_failed", message: "Subject must be at most 200 characters", fields: { subject: "Subject must be at most 200 characters" } } });
    const user = userEvent.setup();
    renderApp("/contact");
    await screen.findByRole("heading", { name: "Contact Us" });
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByText("Subject must be at most 200 characters")).toBeTruthy();
    expect(await screen.findByText("Failed to Send Message")).toBeTruthy();
  });
});

describe("contact dialog (SPEC §2/§4)", () => {
  test("titled Send Us a Message; after sending shows Message Sent, then resets and closes", async () => {
    answer(201);
    const user = userEvent.setup();
    renderWithProviders(<DialogHarness />);
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByRole("heading", { name: "Send Us a Message" })).toBeTruthy();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByRole("heading", { name: "Message Sent" })).toBeTruthy();
    expect(screen.getByText("dialog is open")).toBeTruthy();
    await waitFor(() => expect(screen.getByText("dialog is closed")).toBeTruthy(), { timeout: 4000 });
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  test("failure keeps the dialog on the form with the failure toast", async () => {
    answer(429, { error: { code: "rate_limited", message: "slow down" } });
    const user = userEvent.setup();
    renderWithProviders(<DialogHarness />);
    await screen.findByRole("dialog");
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: "Send Message" }));
    expect(await screen.findByText("Failed to Send Message")).toBeTruthy();
    expect(within(screen.getByRole("dialog")).getByRole("heading", { name: "Send Us a Message" })).toBeTruthy();
  });

  test("Escape closes the dialog", async () => {
    const user = userEvent.setup();
    renderWithProviders(<DialogHarness />);
    await screen.findByRole("dialog");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.getByText("dialog is closed")).toBeTruthy());
  });

  test("opened with requestType support preselected", async () => {
    renderWithProviders(<ContactDialog open onOpenChange={() => {}} requestType="support" />);
    expect(((await screen.findByLabelText(/Request Type/)) as HTMLSelectElement).value).toBe("support");
  });
});
