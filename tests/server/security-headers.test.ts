/**
 * Every HTML page carries a Content-Security-Policy that runs the app's own scripts only (no
 * inline script); Stripe's origins appear only on the trial page and only with billing on.
 * Strict-Transport-Security is sent when the public URL is https.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config";
import { makeTestApp, type TestApp } from "../support/app";

let t: TestApp | undefined;
afterEach(() => t?.close());

const INDEX = `<!doctype html><html><head><script type="module" src="/assets/index-abc12345.js"></script></head><body><div id="root"></div></body></html>`;

async function app(config: Partial<Config> = {}) {
  const files = new Map<string, string | Blob>([
    ["/index.html", new Blob([INDEX], { type: "text/html" })],
    ["/assets/index-abc12345.js", new Blob(["console.log(1)"], { type: "text/javascript" })],
  ]);
  t = await makeTestApp({ config, deps: { assets: { files } } });
  return t;
}

/** The policy as directive → sources. */
function directives(policy: string | null): Record<string, string[]> {
  expect(policy).toBeTruthy();
  return Object.fromEntries(policy!.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]));
}

describe("Content-Security-Policy", () => {
  test.each(["/", "/login", "/app/dashboard", "/trial", "/no/such/page"])("%s: scripts from the app itself only, no inline script, no framing", async (path) => {
    const res = await (await app()).request("GET", path);
    expect(res.headers.get("content-type")).toStartWith("text/html");
    const csp = directives(res.headers.get("content-security-policy"));
    expect(csp["script-src"]).toEqual(["'self'"]);
    expect(csp["default-src"]).toEqual(["'self'"]);
    expect(csp["object-src"]).toEqual(["'none'"]);
    expect(csp["base-uri"]).toEqual(["'none'"]);
    expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp["connect-src"]).toEqual(["'self'"]);
    expect(res.headers.get("content-security-policy")).not.toContain("stripe");
  });

  test("with billing on, the trial page (and only it) may load Stripe.js, its frames and its API; scripts still get no 'unsafe-inline'", async () => {
    const t = await app({ stripeSecretKey: "sk_test_123", stripePublishableKey: "pk_test_123" });
    const trial = directives((await t.request("GET", "/trial?plan=growth")).headers.get("content-security-policy"));
    expect(trial["script-src"]).toEqual(["'self'", "https://js.stripe.com", "https://*.js.stripe.com"]);
    expect(trial["frame-src"]).toContain("https://js.stripe.com");
    expect(trial["frame-src"]).toContain("https://hooks.stripe.com");
    expect(trial["connect-src"]).toEqual(["'self'", "https://api.stripe.com"]);
    for (const path of ["/", "/login", "/app/dashboard", "/app/settings"]) {
      const policy = (await t.request("GET", path)).headers.get("content-security-policy");
      expect(directives(policy)["script-src"]).toEqual(["'self'"]);
      expect(policy).not.toContain("stripe");
    }
  });

  test("JSON answers and assets carry no page policy; every response keeps the fixed headers", async () => {
    const t = await app();
    const api = await t.request("GET", "/healthz");
    expect(api.headers.get("content-security-policy")).toBeNull();
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
    const asset = await t.request("GET", "/assets/index-abc12345.js");
    expect(asset.headers.get("content-security-policy")).toBeNull();
    expect(asset.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("Strict-Transport-Security", () => {
  test("sent on every response when the public URL is https", async () => {
    const t = await app({ publicUrl: "https://dmarc.example.com" });
    for (const path of ["/", "/healthz", "/api/no-such-endpoint"]) expect((await t.request("GET", path)).headers.get("strict-transport-security")).toBe("max-age=31536000");
  });

  test.each(["", "http://dmarc.example.com"])("not sent when the public URL is %p", async (publicUrl) => {
    const t = await app({ publicUrl });
    expect((await t.request("GET", "/")).headers.get("strict-transport-security")).toBeNull();
  });
});
