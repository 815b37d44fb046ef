import { describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newPage } from "../support/browser";
import { signUpViaApi, useServerAndBrowser } from "../support/e2e";
import { EXECUTABLE, ensureExecutable, startServer } from "../support/server";

const ctx = useServerAndBrowser();

describe("the executable serves the SPA and the API", () => {
  test("/ loads the SPA in Chromium", async () => {
    const { page, errors } = await newPage(ctx.browser);
    await page.goto(ctx.server.url + "/");
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    expect(await page.title()).toContain("dmarcwarden");
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("a deep link such as /app/dns returns the SPA and renders that screen in the sidebar layout", async () => {
    const { page, errors } = await newPage(ctx.browser);
    // /app/* screens other than /app need a signed-in user (issue 4): sign up through the API first
    await signUpViaApi(page, ctx.server.url, { name: "Deep Link", email: "deep-link@example.test", password: "deep link password 1", organization: "Deep Link Org" });
    const response = await page.goto(ctx.server.url + "/app/dns");
    expect(response?.status()).toBe(200);
    expect(response?.headers()["cache-control"]).toBe("no-cache");
    await page.getByRole("heading", { name: "DNS Lookup" }).waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "DNS Lookup" }).getAttribute("aria-current")).toBe("page");
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("an unknown path shows the 404 screen", async () => {
    const { page } = await newPage(ctx.browser);
    await page.goto(ctx.server.url + "/this/does/not/exist");
    await page.getByRole("heading", { name: "404 Page Not Found" }).waitFor();
    expect(await page.getByText("Did you forget to add the page to the router?").isVisible()).toBe(true);
    await page.context().close();
  });

  test("hashed assets are cached for a year; unknown API paths are JSON 404s", async () => {
    const html = await (await fetch(ctx.server.url + "/")).text();
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeTruthy();
    const asset = await fetch(ctx.server.url + script);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toContain("javascript");
    const missing = await fetch(ctx.server.url + "/assets/gone-abcdef12.js");
    expect(missing.status).toBe(404);
    const api = await fetch(ctx.server.url + "/api/nope");
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: { code: "not_found", message: "No such endpoint." } });
  });
});

describe("the executable alone", () => {
  test("copied to an empty directory it starts, serves /, /app/dns and /healthz, and keeps data across a restart", async () => {
    await ensureExecutable();
    const dir = mkdtempSync(join(tmpdir(), "dw-alone-"));
    try {
      const exe = join(dir, "dmarcwarden");
      copyFileSync(EXECUTABLE, exe);
      Bun.spawnSync(["chmod", "+x", exe]);
      const first = await startServer({ dir, executable: exe, args: ["--seed-admin", "root:first-password"] });
      for (const path of ["/", "/app/dns"]) expect((await fetch(first.url + path)).headers.get("content-type")).toContain("text/html");
      expect(await (await fetch(first.url + "/healthz")).json()).toMatchObject({ status: "ok", db: "ok" });
      await first.stop();
      expect(existsSync(join(dir, "dw.db"))).toBe(true);

      // Restart on the same database: the seeded admin is still there (seeding again updates, never duplicates).
      const second = await startServer({ dir, executable: exe, args: ["--seed-admin", "root:second-password"] });
      expect(second.output()).toContain('"outcome":"updated"');
      await second.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  test("--help lists the commands; a bad flag value exits 2 with one clear line", async () => {
    await ensureExecutable();
    const help = Bun.spawnSync([EXECUTABLE, "--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout.toString()).toContain("serve");
    expect(help.stdout.toString()).toContain("migrate");
    const serveHelp = Bun.spawnSync([EXECUTABLE, "serve", "--help"]).stdout.toString();
    for (const flag of ["--port", "--host", "--db", "--seed-admin"]) expect(serveHelp).toContain(flag);
    const bad = Bun.spawnSync([EXECUTABLE, "serve", "--port", "eighty"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.toString().trim()).toBe('dmarcwarden: --port: "eighty" is not a whole number');
  });
});
