/**
 * Builds the SPA into dist/ui: index.html plus content-hashed JS/CSS chunks, production
 * React, Tailwind + daisyUI through the Bun plugin (the bun CLI takes no plugins).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import tailwind from "bun-plugin-tailwind";

/** Where builds go: dist/ by default; DW_DIST lets parallel work trees build apart. */
export function distDir(root = join(import.meta.dir, "..")): string {
  return process.env.DW_DIST ?? join(root, "dist");
}

export async function buildUi(root = join(import.meta.dir, "..")): Promise<string> {
  const outdir = join(distDir(root), "ui");
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [join(root, "ui/index.html")],
    outdir,
    plugins: [tailwind],
    minify: true,
    splitting: true,
    target: "browser",
    sourcemap: "none",
    publicPath: "/",
    naming: { entry: "[name].[ext]", chunk: "assets/[name]-[hash].[ext]", asset: "assets/[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    throw new Error("UI build failed");
  }
  return outdir;
}

if (import.meta.main) {
  const out = await buildUi();
  console.log(`UI built into ${out}`);
}
