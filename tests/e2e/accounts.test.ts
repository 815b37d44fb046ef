/**
 * Issue 4 end to end in Chromium against the built executable: the Master Administrator signs
 * in from the landing page, reads a message sent through /contact, marks it read and logs out;
 * a user signs up, adds a domain, signs out and is sent to /login from /app/domains.
 */
import { describe, expect, test } from "bun:test";
import { newPage } from "../support/browser";
import { useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser({ args: ["--seed-admin", "warden:e2e-admin-pass"] });

describe("accounts and the admin console", () => {
  test("admin: message via /contact → landing Sign In → console → Mark Read → Logout", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await page.goto(ctx.server.url + "/contact");
    await page.getByLabel(/^Full Name/).fill("Rita Hayworth");
    await page.getByLabel(/^Email Address/).fill("rita@hayworth-law.example");
    await page.getByLabel(/^Company/).fill("Hayworth Law");
    await page.getByLabel(/^Phone/).fill("+1 555 0199");
    await page.getByLabel(/^Subject/).fill("Pricing for our firm");
    await page.getByLabel(/^Message/).fill("We have three domains and would like to stop spoofing this month.");
    await page.getByLabel(/^Domains/).fill("hayworth-law.example");
    await page.getByRole("button", { name: "Send Message" }).click();
    await page.getByRole("heading", { name: "Message Sent" }).waitFor();

    await page.goto(ctx.server.url + "/");
    await page.getByRole("button", { name: "Sign In" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Username").fill("warden");
    await dialog.getByLabel("Password").fill("e2e-admin-pass");
    await dialog.getByRole("button", { name: "Login" }).click();
    await page.waitForURL(ctx.server.url + "/admin/dashboard");
    await page.getByTestId("toast").getByText("Admin Login Successful", { exact: true }).waitFor();
    await page.getByRole("heading", { name: "Master Administrator Console" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("adminSessionId"))).toBeTruthy();

    const row = page.getByRole("row", { name: /Rita Hayworth/ });
    await row.waitFor();
    expect(await row.getByText("New").isVisible()).toBe(true);
    expect(await row.getByText("+1 555 0199").isVisible()).toBe(true);
    expect(await page.getByTestId("count-Unread").textContent()).toBe("1");
    await row.getByRole("button", { name: "Mark Read" }).click();
    await page.getByTestId("toast").getByText("Marked as Read", { exact: true }).waitFor();
    await row.getByText("Read", { exact: true }).waitFor();
    expect(await row.getByRole("button", { name: "Mark Read" }).count()).toBe(0);
    expect(await page.getByTestId("count-Unread").textContent()).toBe("0");

    await page.getByRole("button", { name: "Logout" }).click();
    await page.waitForURL(ctx.server.url + "/");
    await page.getByTestId("toast").getByText("Logged Out", { exact: true }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("adminSessionId"))).toBeNull();

    // the console is closed again without a stored session
    await page.goto(ctx.server.url + "/admin/dashboard");
    await page.waitForURL(ctx.server.url + "/");
    await page.getByTestId("toast").getByText("Access Denied", { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("wrong admin password: Login Failed, dialog closed", async () => {
    const { page } = await newPage(ctx.browser);
    await page.goto(ctx.server.url + "/");
    await page.getByRole("button", { name: "Sign In" }).click();
    await page.getByRole("dialog").getByLabel("Username").fill("warden");
    await page.getByRole("dialog").getByLabel("Password").fill("not-the-password");
    await page.getByRole("dialog").getByRole("button", { name: "Login" }).click();
    await page.getByTestId("toast").getByText("Login Failed", { exact: true }).waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    await page.context().close();
  });

  test("user: sign up → add a domain → sign out → /app/domains sends to /login", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await page.goto(ctx.server.url + "/app/domains");
    await page.waitForURL(/\/login\?next=%2Fapp%2Fdomains$/);
    await page.getByRole("link", { name: "Create one" }).click();
    await page.getByLabel("Your name").fill("Dana Scully");
    await page.getByLabel("Email").fill("Dana@Example.com");
    await page.getByLabel("Password").fill("short");
    await page.getByLabel("Organization name").fill("Scully Dental");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Password must be at least 10 characters").waitFor();
    await page.getByLabel("Password").fill("truth is out there 1013");
    await page.getByRole("button", { name: "Create account" }).click();
    // ?next= brings the new user back to where they were going
    await page.waitForURL(ctx.server.url + "/app/domains");
    await page.getByRole("heading", { name: "Domain Management" }).waitFor();
    await page.getByText("No domains").waitFor();
    const footer = page.getByTestId("sidebar-user");
    expect(await footer.textContent()).toContain("Dana Scully");
    expect(await footer.textContent()).toContain("Owner");
    expect(await page.getByRole("button", { name: /switch organization/i }).textContent()).toContain("Scully Dental");

    await page.getByLabel("Add a domain").fill("not a domain");
    await page.getByRole("button", { name: "Add Domain" }).click();
    await page.getByText("Please enter a valid domain name (e.g., example.com)").waitFor();
    await page.getByLabel("Add a domain").fill("  Scully-Dental.Example ");
    await page.getByRole("button", { name: "Add Domain" }).click();
    await page.getByRole("cell", { name: "scully-dental.example", exact: true }).waitFor();
    await page.getByLabel("Add a domain").fill("scully-dental.example");
    await page.getByRole("button", { name: "Add Domain" }).click();
    await page.getByText("scully-dental.example is already in this organization's domains.").waitFor();

    await footer.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(/\/login/);
    await page.goto(ctx.server.url + "/app/domains");
    await page.waitForURL(/\/login\?next=%2Fapp%2Fdomains$/);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();

    // and signing in again lands back on the domain, which is still there
    await page.getByLabel("Email").fill("dana@example.com");
    await page.getByLabel("Password").fill("truth is out there 1013");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(ctx.server.url + "/app/domains");
    await page.getByRole("cell", { name: "scully-dental.example", exact: true }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
