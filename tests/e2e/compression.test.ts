/**
 * The built executable sends its SPA precompressed and its larger JSON gzip-compressed: in
 * Chromium the landing page arrives as brotli, within its budget, without the app's sidebar
 * layout or the password dictionaries, which come when a screen needs them.
 */
import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import type { Response as PwResponse } from "playwright-core";
import { newPage } from "../support/browser";
import { shot, signUpViaApi, useServerAndBrowser } from "../support/e2e";

const ctx = useServerAndBrowser();

describe("compressed responses from the executable", () => {
  test("the landing page's scripts and styles come as brotli with Vary, within 150 KB, and without the app's chunks", async () => {
    const { page, errors } = await newPage(ctx.browser, { width: 1280 });
    const assets: PwResponse[] = [];
    page.on("response", (r) => {
      if (new URL(r.url()).pathname.startsWith("/assets/")) assets.push(r);
    });
    await page.goto(ctx.server.url + "/");
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await page.waitForLoadState("networkidle");
    expect(assets.length).toBeGreaterThan(3);
    let sent = 0;
    for (const r of assets) {
      const headers = await r.allHeaders();
      const length = Number(headers["content-length"]);
      expect(length, r.url()).toBeGreaterThan(0);
      sent += length;
      if (length > 2048) {
        expect(headers["content-encoding"], r.url()).toBe("br");
        expect(headers["vary"], r.url()).toBe("Accept-Encoding");
      }
    }
    expect(sent).toBeLessThanOrEqual(150 * 1024);
    const names = assets.map((r) => new URL(r.url()).pathname);
    expect(names.filter((n) => /AppLayout|zxcvbn/.test(n))).toEqual([]);
    await shot(page, "landing-compressed-1280");

    // the tooltips' code came after the page showed, and they work
    await page.getByText("SOC 2 Type II").hover();
    await page.getByRole("tooltip").filter({ hasText: "Controls designed to meet SOC 2 Type II requirements" }).waitFor();
    expect(assets.some((r) => /TooltipContent/.test(r.url()))).toBe(true);

    // the sign-in dialog's code arrives when it is opened, and works
    await page.getByRole("button", { name: /^sign in$/i }).first().click();
    await page.getByRole("dialog").waitFor();
    await page.keyboard.press("Escape");

    // an app screen brings the sidebar layout; a focused password field brings the dictionaries
    await signUpViaApi(page, ctx.server.url, { email: "zip@northwind.test" });
    await page.goto(ctx.server.url + "/app/dashboard");
    await page.getByRole("complementary", { name: "Sidebar" }).waitFor();
    expect(assets.some((r) => /AppLayout/.test(r.url()))).toBe(true);
    expect(errors).toEqual([]);
  });

  test("a JSON answer over 1 KB is gzip for a client that asks, the same JSON decoded; a small one is left as it is", async () => {
    const raw = await fetch(ctx.server.url + "/api/openapi.json", { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(raw.headers.get("content-encoding")).toBe("gzip");
    expect(raw.headers.get("vary")).toContain("Accept-Encoding");
    const zipped = new Uint8Array(await raw.arrayBuffer());
    expect(Number(raw.headers.get("content-length"))).toBe(zipped.length);
    const plain = await (await fetch(ctx.server.url + "/api/openapi.json", { headers: { "accept-encoding": "identity" } })).text();
    expect(new TextDecoder().decode(gunzipSync(zipped))).toBe(plain);
    expect(zipped.length).toBeLessThan(plain.length / 3);

    const health = await fetch(ctx.server.url + "/healthz", { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(health.headers.get("content-encoding")).toBeNull();
    expect((await health.json()).status).toBe("ok");
  });
});
