/**
 * The SPA's size budget (issue 15), on a fresh production build of the UI: the landing page
 * loads at most 150 KB of gzip JS + CSS before it shows, any other screen at most 250 KB;
 * every hashed asset worth compressing has brotli and gzip twins that decode to it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { BUDGET, buildUi, COMPRESS_MIN_BYTES, describeManifest, routeModules, uiBuildIsCurrent, type UiManifest } from "../../scripts/build-ui";

const ROOT = join(import.meta.dir, "../..");
let dir: string;
let ui: string;
let manifest: UiManifest;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dw-bundle-"));
  ui = await buildUi(ROOT, join(dir, "ui"));
  manifest = JSON.parse(readFileSync(join(dir, "ui-manifest.json"), "utf8"));
  console.log(describeManifest(manifest));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the server sends with gzip for one file: its `.gz` twin, or the file when it has none. */
const sentWithGzip = (file: string) => readFileSync(join(ui, existsSync(join(ui, `${file}.gz`)) ? `${file}.gz` : file)).length;

describe("route bundles", () => {
  test("every route of ui/routes.tsx is in the manifest with its entry chunk and stylesheet", () => {
    const { routes } = routeModules(ROOT);
    expect(Object.keys(manifest.routes).sort()).toEqual([...routes.keys()].sort());
    const html = readFileSync(join(ui, "index.html"), "utf8");
    for (const [path, route] of Object.entries(manifest.routes)) {
      const entry = route.files[0]!;
      expect(html, path).toContain(entry);
      expect(route.files.some((f) => f.endsWith(".css")), path).toBe(true);
      for (const f of route.files) expect(existsSync(join(ui, f)), f).toBe(true);
    }
  });

  test("the landing page stays within 150 KB of gzip JS + CSS, every other screen within 250 KB", () => {
    expect(BUDGET).toEqual({ landingGzipBytes: 150 * 1024, screenGzipBytes: 250 * 1024 });
    const over: string[] = [];
    for (const [path, route] of Object.entries(manifest.routes)) {
      const sent = route.files.reduce((sum, f) => sum + sentWithGzip(f), 0);
      expect(sent, path).toBe(route.gzipBytes);
      const budget = path === "/" ? BUDGET.landingGzipBytes : BUDGET.screenGzipBytes;
      if (sent > budget) over.push(`${path}: ${(sent / 1024).toFixed(1)} KB > ${budget / 1024} KB`);
    }
    expect(over).toEqual([]);
  });

  test("the landing page carries neither the sidebar layout, the forms' libraries nor the password dictionaries", () => {
    const landing = manifest.routes["/"]!.files.map((f) => readFileSync(join(ui, f), "utf8")).join("\n");
    const dashboard = manifest.routes["/app/dashboard"]!;
    const layoutOnly = dashboard.files.filter((f) => !manifest.routes["/"]!.files.includes(f));
    expect(layoutOnly.length).toBeGreaterThan(0);
    // zxcvbn's dictionaries (its diceware list) and react-hook-form are in no route's bundle of the landing page
    expect(landing).not.toContain("abacus");
    expect(landing).not.toContain("shouldUnregister");
    const everyRoute = new Set(Object.values(manifest.routes).flatMap((r) => r.files));
    for (const f of everyRoute) expect(readFileSync(join(ui, f), "utf8").includes("abacus"), f).toBe(false);
    // ...but they are built, in a chunk of their own
    const assets = readdirSync(join(ui, "assets")).filter((f) => f.endsWith(".js"));
    expect(assets.some((f) => readFileSync(join(ui, "assets", f), "utf8").includes("abacus"))).toBe(true);
  });
});

describe("precompressed twins", () => {
  test("each hashed JS and CSS file of 256 bytes or more has .br and .gz twins that decode to it, smaller than it", () => {
    const files = readdirSync(join(ui, "assets")).filter((f) => /\.(js|css)$/.test(f));
    expect(files.length).toBeGreaterThan(10);
    let twinned = 0;
    for (const f of files) {
      const raw = readFileSync(join(ui, "assets", f));
      const br = join(ui, "assets", `${f}.br`);
      const gz = join(ui, "assets", `${f}.gz`);
      if (raw.length < COMPRESS_MIN_BYTES) {
        expect(existsSync(br) || existsSync(gz), f).toBe(false);
        continue;
      }
      twinned++;
      expect(Buffer.compare(brotliDecompressSync(readFileSync(br)), raw), f).toBe(0);
      expect(Buffer.compare(gunzipSync(readFileSync(gz)), raw), f).toBe(0);
      expect(readFileSync(br).length, f).toBeLessThan(raw.length);
    }
    expect(twinned).toBeGreaterThan(10);
  });
});

describe("npm start builds only when the sources changed", () => {
  test("a build is current until a file it read changes, then it is not", () => {
    // a tree of copies of what the build read, so a source can change without touching the repository
    const copy = mkdtempSync(join(tmpdir(), "dw-ui-src-"));
    try {
      const { inputs } = JSON.parse(readFileSync(join(dir, "ui-inputs.json"), "utf8")) as { inputs: string[] };
      expect(inputs).toContain("ui/main.tsx");
      for (const file of [...inputs, "package-lock.json", "scripts/build-ui.ts"]) {
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        cpSync(join(ROOT, file), join(copy, file));
      }
      expect(uiBuildIsCurrent(copy, ui)).toBe(true);
      appendFileSync(join(copy, "ui/main.tsx"), "\n// changed\n");
      expect(uiBuildIsCurrent(copy, ui)).toBe(false);
      cpSync(join(ROOT, "ui/main.tsx"), join(copy, "ui/main.tsx"));
      expect(uiBuildIsCurrent(copy, ui)).toBe(true);
      appendFileSync(join(copy, "package-lock.json"), " ");
      expect(uiBuildIsCurrent(copy, ui)).toBe(false);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test("no build yet is never current", () => {
    expect(uiBuildIsCurrent(ROOT, join(dir, "no-such-build"))).toBe(false);
  });
});
