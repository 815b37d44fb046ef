import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { newPage } from "../support/browser";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { signUpViaApi, useServerAndBrowser } from "../support/e2e";
import { EXECUTABLE } from "../support/server";

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer(fixtureZone());
});
afterAll(() => dns?.close());
const ctx = useServerAndBrowser({ args: () => ["--dns-server", dns.address] });

async function signedInPage(): Promise<{ page: Page; errors: string[] }> {
  const { page, errors } = await newPage(ctx.browser);
  await signUpViaApi(page, ctx.server.url, { name: "Dana Owner", password: "correct horse battery", organization: "Dana Dental" });
  return { page, errors };
}

async function lookUp(page: Page, domain: string) {
  const input = page.getByPlaceholder("Enter domain (e.g., example.com)");
  await input.fill(domain);
  await input.press("Enter");
  await page.getByRole("region", { name: "DKIM result" }).waitFor();
  await page.getByRole("heading", { name: domain }).waitFor();
}

const badges = async (page: Page, name: string) => (await page.getByRole("region", { name: `${name} result` }).locator(".badge").allInnerTexts()).map((s) => s.trim());

describe("DNS Lookup in the built executable, against a local DNS server", () => {
  test("/app/dns shows the right statuses for each fixture domain", async () => {
    const { page, errors } = await signedInPage();
    await page.goto(ctx.server.url + "/app/dns");
    await page.getByRole("heading", { name: "DNS Lookup", level: 1 }).waitFor();

    await lookUp(page, "good.test");
    expect(await badges(page, "DMARC")).toEqual(["Reject", "Valid"]);
    expect(await badges(page, "SPF")).toEqual(["Valid"]);
    expect(await badges(page, "DKIM")).toEqual(["Valid"]);

    await lookUp(page, "toomany.test");
    expect(await badges(page, "SPF")).toEqual(["Too many lookups", "Invalid"]);
    expect(await badges(page, "DKIM")).toEqual(["Not Found"]);
    await expect(page.getByRole("region", { name: "DKIM result" }).getByText(/No DKIM key found for toomany.test/).first().isVisible()).resolves.toBe(true);

    await lookUp(page, "weak.test");
    expect(await badges(page, "DKIM")).toEqual(["Weak key", "Invalid"]);

    await lookUp(page, "nopolicy.test");
    expect(await badges(page, "DMARC")).toEqual(["None", "Valid"]);

    await lookUp(page, "sub.inherit.test");
    expect(await badges(page, "DMARC")).toEqual(["Quarantine", "Valid"]);

    await lookUp(page, "missing.test");
    expect(await badges(page, "DMARC")).toEqual(["Invalid"]);
    expect(await badges(page, "SPF")).toEqual(["Invalid"]);

    // details open beneath the badge, with the fix
    await lookUp(page, "loop.test");
    const spf = page.getByRole("region", { name: "SPF result" });
    await spf.getByText(/Details and fixes/).click();
    await spf.locator("details").getByText(/include loop/).waitFor();
    expect(await spf.getByText(/How to fix/).first().isVisible()).toBe(true);

    // validation toasts
    await page.getByPlaceholder("Enter domain (e.g., example.com)").fill("   ");
    await page.getByRole("button", { name: "Lookup" }).click();
    await page.getByText("Domain Required").first().waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("a domain added to the organization gets its statuses from the checks", async () => {
    const { page } = await signedInPage();
    const added = await page.request.post(ctx.server.url + "/api/domains", { data: { name: "good.test" }, headers: { origin: ctx.server.url } });
    expect(added.status()).toBe(201);
    let domain: any;
    for (let i = 0; i < 100; i++) {
      domain = (await (await page.request.get(ctx.server.url + "/api/domains")).json()).find((d: any) => d.name === "good.test");
      if (domain.overallStatus !== "pending") break;
      await Bun.sleep(50);
    }
    expect(domain).toMatchObject({ dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected" });
    await page.context().close();
  });

  test("`dmarcwarden check` prints the same analysis", async () => {
    const run = async (...args: string[]) => {
      const proc = Bun.spawn([EXECUTABLE, "check", ...args, "--dns-server", dns.address], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
      return { out: await new Response(proc.stdout).text(), code: await proc.exited };
    };
    const text = await run("toomany.test");
    expect(text.out).toContain("SPF      too many lookups  (11/10 DNS lookups");
    expect(text.code).toBe(1);
    const json = await run("good.test", "--json");
    expect(JSON.parse(json.out)).toMatchObject({ domain: "good.test", overallStatus: "protected", dkim: { details: { keys: [{ bits: 2048 }] } } });
    expect(json.code).toBe(0);
    const custom = await run("custom.test", "--selector", "brand2024", "--json");
    expect(JSON.parse(custom.out).dkim.status).toBe("valid");
  });
});
