import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * The built SPA: a map from URL path ("/assets/main-abc123.js") to a file. In the compiled
 * executable the files are embedded (see scripts/build.ts); in development they are read
 * from dist/ui on disk.
 */
export interface SpaAssets {
  files: Map<string, string | Blob>;
}

export function diskAssets(dir: string): SpaAssets {
  const files = new Map<string, string | Blob>();
  if (!existsSync(dir)) return { files };
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.set("/" + relative(dir, full).split(sep).join("/"), full);
    }
  };
  walk(dir);
  return { files };
}

const HASHED = /-[a-z0-9]{8,}\.(js|css|map|woff2?|svg|png|jpg|webp)$/i;

const MISSING_UI = `<!doctype html><meta charset="utf-8"><title>dmarcwarden</title><body style="font-family:sans-serif;padding:2rem"><h1>The web interface is not built</h1><p>Run <code>npm run build:ui</code> (or <code>npm start</code>, which builds it) and reload.</p></body>`;

/**
 * Answers a GET for a non-API path: the asset itself (hashed names cached for a year,
 * others revalidated), or index.html for any client-side route. Never used for /api/*.
 */
export async function serveSpa(assets: SpaAssets, pathname: string): Promise<Response> {
  const file = assets.files.get(pathname);
  if (file && pathname !== "/index.html") {
    const blob = typeof file === "string" ? Bun.file(file) : file;
    const cache = HASHED.test(pathname) ? "public, max-age=31536000, immutable" : "public, max-age=0, must-revalidate";
    return new Response(blob, { headers: { "content-type": contentType(pathname, blob), "cache-control": cache } });
  }
  // A missing file with an extension is a 404, not the app (a stale chunk must not get HTML).
  if (/\.[a-z0-9]{1,5}$/i.test(pathname) && !pathname.endsWith(".html")) {
    return new Response("Not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-cache" } });
  }
  const index = assets.files.get("/index.html");
  const body = index ? (typeof index === "string" ? Bun.file(index) : index) : MISSING_UI;
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });
}

function contentType(path: string, blob: Blob): string {
  if (path.endsWith(".js")) return "text/javascript; charset=utf-8";
  if (path.endsWith(".css")) return "text/css; charset=utf-8";
  if (path.endsWith(".html")) return "text/html; charset=utf-8";
  if (path.endsWith(".svg")) return "image/svg+xml";
  if (path.endsWith(".json") || path.endsWith(".map")) return "application/json";
  return blob.type || "application/octet-stream";
}
