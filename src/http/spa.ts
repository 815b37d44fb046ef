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

/** a request for a file the build would have made (script, style, font, image, map, text) */
const ASSET_NAME = /\.(m?js|css|map|woff2?|ttf|otf|svg|png|jpe?g|gif|webp|avif|ico|txt|json|xml|webmanifest|wasm|br|gz)$/i;
const HASHED = /-[a-z0-9]{8,}\.(js|css|map|woff2?|svg|png|jpg|webp)$/i;

/** The precompressed twins the build writes beside an asset (scripts/build-ui.ts), best first. */
const ENCODINGS = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

/**
 * The encodings an Accept-Encoding header allows: a listed coding with q > 0, or `*`.
 * Absent header: identity only (RFC 9110 §12.5.3 allows any, but a client that sends none
 * is usually a script that would not decode).
 */
export function acceptedEncodings(header: string | null): Set<string> {
  const accepted = new Set<string>();
  if (!header) return accepted;
  let star = false;
  const refused = new Set<string>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const zero = q !== undefined && Number(q.slice(2)) === 0;
    if (name === "*") star = !zero;
    else if (zero) refused.add(name);
    else accepted.add(name === "x-gzip" ? "gzip" : name);
  }
  if (star) for (const { name } of ENCODINGS) if (!refused.has(name)) accepted.add(name);
  return accepted;
}

const MISSING_UI = `<!doctype html><meta charset="utf-8"><title>dmarcwarden</title><body style="font-family:sans-serif;padding:2rem"><h1>The web interface is not built</h1><p>Run <code>npm run build:ui</code> (or <code>npm start</code>, which builds it) and reload.</p></body>`;

/**
 * Answers a GET for a non-API path: the asset itself (hashed names cached for a year,
 * others revalidated), as its precompressed brotli or gzip twin when the client accepts one
 * (`Vary: Accept-Encoding`), or index.html for any client-side route. Never used for /api/*.
 * The twins (`.br`, `.gz`) are not served under their own names.
 */
export async function serveSpa(assets: SpaAssets, pathname: string, acceptEncoding: string | null = null): Promise<Response> {
  const file = /\.(br|gz)$/.test(pathname) ? undefined : assets.files.get(pathname);
  if (file && pathname !== "/index.html") {
    const blob = typeof file === "string" ? Bun.file(file) : file;
    const cache = HASHED.test(pathname) ? "public, max-age=31536000, immutable" : "public, max-age=0, must-revalidate";
    const headers: Record<string, string> = { "content-type": contentType(pathname, blob), "cache-control": cache };
    // the build's brotli or gzip twin when the client takes it (br first: smaller)
    const twins = ENCODINGS.filter((e) => assets.files.has(pathname + e.suffix));
    headers["content-length"] = String(blob.size);
    if (twins.length === 0) return new Response(blob, { headers });
    headers.vary = "Accept-Encoding";
    const accepted = acceptedEncodings(acceptEncoding);
    const chosen = twins.find((e) => accepted.has(e.name));
    if (!chosen) return new Response(blob, { headers });
    const stored = assets.files.get(pathname + chosen.suffix)!;
    const twin = typeof stored === "string" ? Bun.file(stored) : stored;
    headers["content-encoding"] = chosen.name;
    headers["content-length"] = String(twin.size);
    return new Response(twin, { headers });
  }
  // A missing file is a 404, not the app (a stale chunk must not get HTML). The app's own routes
  // may end like a file name (a sender page keyed by an IP address or a host name): they get the app.
  if (pathname.startsWith("/assets/") || (!pathname.startsWith("/app/") && ASSET_NAME.test(pathname))) {
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
