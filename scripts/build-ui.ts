/**
 * Builds the SPA into dist/ui: index.html plus content-hashed JS/CSS chunks, production
 * React, Tailwind + daisyUI through the Bun plugin (the bun CLI takes no plugins).
 *
 * Each screen of ui/routes.tsx is a chunk of its own; the build writes dist/ui-manifest.json
 * (outside dist/ui: it is not served) with the files each route loads — the entry chunk, the
 * screen's chunk, the sidebar layout for app screens, the chunks those import, the CSS — and
 * their gzip size, prints the figures and checks them against the budget.
 *
 * Every hashed asset of at least COMPRESS_MIN_BYTES gets two precompressed twins beside it,
 * `name.br` (brotli, quality 11) and `name.gz` (gzip, libdeflate level 12): the server sends
 * them by Accept-Encoding (src/http/spa.ts), so nothing is compressed per request.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { brotliCompressSync, constants } from "node:zlib";
import type { BunPlugin } from "bun";

/** Where builds go: dist/ by default; DW_DIST lets parallel work trees build apart. */
export function distDir(root = join(import.meta.dir, "..")): string {
  return process.env.DW_DIST ?? join(root, "dist");
}

/** gzip of JS + CSS a route may load before it shows (issue 15). */
export const BUDGET = { landingGzipBytes: 150 * 1024, screenGzipBytes: 250 * 1024 };

/** Assets smaller than this are sent as they are (below it gzip's header outweighs the saving). */
export const COMPRESS_MIN_BYTES = 256;

/** gzip as the server sends it (the `.gz` twins): libdeflate at its highest level. */
export const gzip = (data: Uint8Array) => Bun.gzipSync(data as Uint8Array<ArrayBuffer>, { level: 12, library: "libdeflate" } as Parameters<typeof Bun.gzipSync>[1]);
export const brotli = (data: Uint8Array) =>
  brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length } });

/** Writes `file.gz` and `file.br` beside each asset under assets/ of at least COMPRESS_MIN_BYTES. */
function precompress(outdir: string): void {
  const assets = join(outdir, "assets");
  for (const name of readdirSync(assets)) {
    if (!/\.(js|css|svg|json|map)$/.test(name)) continue;
    const data = readFileSync(join(assets, name));
    if (data.length < COMPRESS_MIN_BYTES) continue;
    writeFileSync(join(assets, `${name}.gz`), gzip(data));
    writeFileSync(join(assets, `${name}.br`), brotli(data));
  }
}

export interface RouteBundle {
  /** files under dist/ui ("/assets/index-abc.js"), entry first */
  files: string[];
  /** bytes sent with gzip: each file's `.gz` twin, or the file itself when it has none */
  gzipBytes: number;
  budgetBytes: number;
}
export interface UiManifest {
  routes: Record<string, RouteBundle>;
}

/**
 * Browser stand-ins for shared modules whose Node version would weigh down every screen:
 * the password rule's dictionaries come in a chunk of their own (see the browser file).
 */
const browserModules: BunPlugin = {
  name: "dmarcwarden-browser-modules",
  setup(build) {
    const root = join(import.meta.dir, "..");
    build.onResolve({ filter: /\/password-strength$/ }, (args) => {
      if (join(dirname(args.importer), args.path) !== join(root, "src/lib/password-strength")) return undefined;
      return { path: join(root, "ui/lib/password-strength.browser.ts") };
    });
  },
};

export async function buildUi(root = join(import.meta.dir, ".."), outdir = join(distDir(root), "ui")): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  // loaded here, not at the top: a start whose build is current should not pay for Tailwind
  const tailwind = (await import("bun-plugin-tailwind")).default;
  const result = await Bun.build({
    entrypoints: [join(root, "ui/index.html")],
    outdir,
    plugins: [tailwind, browserModules],
    minify: true,
    splitting: true,
    target: "browser",
    sourcemap: "none",
    publicPath: "/",
    metafile: true,
    naming: { entry: "[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  } as Parameters<typeof Bun.build>[0]);
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error("UI build failed");
  }
  const raw = (result as unknown as { metafile: unknown }).metafile;
  const meta: Metafile = typeof raw === "string" ? JSON.parse(raw) : (raw as Metafile);
  precompress(outdir);
  const manifest = routeManifest(root, outdir, meta);
  writeFileSync(join(dirname(outdir), "ui-manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  const inputs = Object.keys(meta.inputs ?? {}).filter((f) => !f.startsWith("node_modules/") && existsSync(join(root, f)));
  writeFileSync(join(dirname(outdir), UI_INPUTS), JSON.stringify({ hash: inputsHash(root, inputs), inputs }, null, 2) + "\n");
  return outdir;
}

/** Beside the manifest: the build's source files and their joint hash, to tell whether a build is current. */
const UI_INPUTS = "ui-inputs.json";
/** What shapes a build besides the UI's own sources: the packages it bundles and this script. */
const BUILD_FILES = ["package-lock.json", "scripts/build-ui.ts"];

function inputsHash(root: string, inputs: string[]): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const file of [...BUILD_FILES, ...inputs].sort()) {
    hasher.update(file);
    hasher.update(existsSync(join(root, file)) ? readFileSync(join(root, file)) : "(missing)");
  }
  return hasher.digest("hex");
}

/**
 * Whether dist/ui was built from the sources as they are now: every source file the last build
 * read, the lockfile and this script hash the same. A new file can only change the build through
 * an import in a file the build read, so that file's change is seen.
 */
export function uiBuildIsCurrent(root = join(import.meta.dir, ".."), outdir = join(distDir(root), "ui")): boolean {
  const record = join(dirname(outdir), UI_INPUTS);
  if (!existsSync(join(outdir, "index.html")) || !existsSync(join(dirname(outdir), "ui-manifest.json")) || !existsSync(record)) return false;
  try {
    const { hash, inputs } = JSON.parse(readFileSync(record, "utf8")) as { hash: string; inputs: string[] };
    return inputs.length > 0 && statSync(outdir).isDirectory() && inputsHash(root, inputs) === hash;
  } catch {
    return false;
  }
}

interface Metafile {
  inputs?: Record<string, unknown>;
  outputs: Record<string, { bytes: number; inputs: Record<string, unknown>; imports: { path: string; kind: string }[]; entryPoint?: string }>;
}

/** The screens of ui/routes.tsx: route path → source module of its lazy chunk. */
export function routeModules(root: string): { routes: Map<string, string>; layout: string } {
  const source = readFileSync(join(root, "ui/routes.tsx"), "utf8");
  const resolve = (spec: string) => {
    const base = join("ui", spec);
    const found = [`${base}.tsx`, `${base}.ts`, `${base}/index.tsx`, `${base}/index.ts`].find((f) => existsSync(join(root, f)));
    if (!found) throw new Error(`ui/routes.tsx: cannot find the module ${spec}`);
    return found;
  };
  const modules = new Map<string, string>();
  for (const m of source.matchAll(/const (\w+) = page\(\(\) => import\("([^"]+)"\)\)/g)) modules.set(m[1]!, resolve(m[2]!));
  const routes = new Map<string, string>();
  for (const m of source.matchAll(/\{ path: "([^"]+)", element: (\w+) \}/g)) {
    const module = modules.get(m[2]!);
    if (!module) throw new Error(`ui/routes.tsx: route ${m[1]} names ${m[2]}, which is not a page(() => import(…))`);
    routes.set(m[1]!, module);
  }
  const layout = /lazy\(\(\) => import\("([^"]+AppLayout)"\)/.exec(source)?.[1];
  if (!layout || routes.size === 0) throw new Error("ui/routes.tsx: no routes or no lazy AppLayout found");
  return { routes, layout: resolve(layout) };
}

function routeManifest(root: string, outdir: string, meta: Metafile): UiManifest {
  const { routes, layout } = routeModules(root);
  const outputs = Object.entries(meta.outputs);
  const url = (out: string) => "/" + out.replace(/^\.\//, "");
  const chunkOf = (module: string) => {
    const hit = outputs.find(([name, o]) => name.endsWith(".js") && module in o.inputs);
    if (!hit) throw new Error(`no chunk holds ${module}`);
    return hit[0];
  };
  const entry = outputs.find(([name, o]) => name.endsWith(".js") && o.entryPoint === "ui/index.html")?.[0] ?? chunkOf("ui/main.tsx");
  const css = outputs.filter(([name]) => name.endsWith(".css")).map(([name]) => name);
  /** a chunk and every chunk it imports statically (what the browser must fetch before it runs) */
  const closure = (start: string, into: Set<string>) => {
    if (into.has(start)) return;
    into.add(start);
    for (const imp of meta.outputs[start]?.imports ?? []) {
      if (imp.kind !== "import-statement") continue;
      const target = imp.path.startsWith("./assets/") ? imp.path : join(dirname(start), imp.path).replace(/^(?!\.\/)/, "./");
      closure(target, into);
    }
  };
  const sizes = new Map<string, number>();
  const gz = (file: string) => {
    if (!sizes.has(file)) sizes.set(file, readFileSync(join(outdir, existsSync(join(outdir, `${file}.gz`)) ? `${file}.gz` : file)).length);
    return sizes.get(file)!;
  };
  const { usesSidebar } = require(join(root, "ui/lib/layout.ts")) as typeof import("../ui/lib/layout");
  const result: UiManifest = { routes: {} };
  for (const [path, module] of routes) {
    const files = new Set<string>();
    closure(entry, files);
    if (usesSidebar(path.replace(/:\w+/g, "x"))) closure(chunkOf(layout), files);
    closure(chunkOf(module), files);
    for (const c of css) files.add(c);
    const list = [...files].map(url);
    result.routes[path] = {
      files: list,
      gzipBytes: list.reduce((sum, f) => sum + gz(f), 0),
      budgetBytes: path === "/" ? BUDGET.landingGzipBytes : BUDGET.screenGzipBytes,
    };
  }
  return result;
}

/** The manifest as a table, one route a line; the lines over budget say so. */
export function describeManifest(manifest: UiManifest): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const width = Math.max(...Object.keys(manifest.routes).map((r) => r.length));
  const lines = Object.entries(manifest.routes).map(
    ([path, r]) => `  ${path.padEnd(width)}  ${kb(r.gzipBytes).padStart(9)} gzip  (${r.files.length} files, budget ${kb(r.budgetBytes)})${r.gzipBytes > r.budgetBytes ? "  OVER BUDGET" : ""}`,
  );
  return ["JS + CSS each route loads before it shows:", ...lines].join("\n");
}

export function readManifest(root = join(import.meta.dir, "..")): UiManifest {
  return JSON.parse(readFileSync(join(distDir(root), "ui-manifest.json"), "utf8"));
}

/** `--if-changed` (npm start): build only when the sources changed since the last build, and say it in a line. */
if (import.meta.main) {
  const ifChanged = process.argv.includes("--if-changed");
  if (ifChanged && uiBuildIsCurrent()) {
    console.log("UI unchanged since the last build (dist/ui)");
  } else {
    const started = performance.now();
    const out = await buildUi();
    const manifest = readManifest();
    const over = Object.values(manifest.routes).filter((r) => r.gzipBytes > r.budgetBytes).length;
    if (ifChanged && !over) console.log(`UI built into ${out} in ${((performance.now() - started) / 1000).toFixed(1)} s, every screen within its budget`);
    else console.log(`UI built into ${out}\n${describeManifest(manifest)}`);
  }
}
