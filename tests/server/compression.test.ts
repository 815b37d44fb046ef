import { afterEach, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { brotliDecompressSync } from "node:zlib";
import { makeTestApp, type TestApp } from "../support/app";
import { COMPRESS_MIN_BYTES } from "../../src/http/compress";
import { acceptedEncodings } from "../../src/http/spa";
import { brotli, gzip } from "../../scripts/build-ui";

let t: TestApp;
afterEach(() => t?.close());

const SCRIPT = `console.log(${JSON.stringify("dmarcwarden ".repeat(400))});\n`;
const STYLE = `body{color:#123}\n`.repeat(200);

/** A built SPA in memory: one script and one stylesheet with their twins, as scripts/build-ui.ts writes them. */
function builtAssets() {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const files = new Map<string, string | Blob>([
    ["/index.html", new Blob(["<!doctype html><title>x</title>"])],
    ["/assets/index-abcd1234.js", new Blob([SCRIPT])],
    ["/assets/index-abcd1234.js.gz", new Blob([gzip(bytes(SCRIPT))])],
    ["/assets/index-abcd1234.js.br", new Blob([brotli(bytes(SCRIPT))])],
    ["/assets/index-efgh5678.css", new Blob([STYLE])],
    ["/assets/index-efgh5678.css.gz", new Blob([gzip(bytes(STYLE))])],
    ["/assets/tiny-ijkl9012.js", new Blob(["1"])],
  ]);
  return { files };
}

const body = async (res: Response) => new Uint8Array(await res.arrayBuffer());
const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("precompressed SPA assets", () => {
  test("brotli when accepted, else gzip, else the file itself; always Vary, the sent length, the year-long cache", async () => {
    t = await makeTestApp({ deps: { assets: builtAssets() } });
    const get = (encoding?: string) => t.request("GET", "/assets/index-abcd1234.js", { headers: encoding === undefined ? {} : { "accept-encoding": encoding } });

    const br = await get("gzip, deflate, br, zstd");
    const brBody = await body(br);
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(br.headers.get("vary")).toBe("Accept-Encoding");
    expect(br.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(br.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(Number(br.headers.get("content-length"))).toBe(brBody.length);
    expect(brBody.length).toBeLessThan(SCRIPT.length / 4);
    expect(text(brotliDecompressSync(brBody))).toBe(SCRIPT);

    const gz = await get("gzip, deflate");
    const gzBody = await body(gz);
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gz.headers.get("vary")).toBe("Accept-Encoding");
    expect(Number(gz.headers.get("content-length"))).toBe(gzBody.length);
    expect(text(gunzipSync(gzBody))).toBe(SCRIPT);

    // br refused by q=0: gzip
    expect((await get("br;q=0, gzip;q=0.5")).headers.get("content-encoding")).toBe("gzip");
    // "*" stands for both
    expect((await get("*")).headers.get("content-encoding")).toBe("br");

    for (const plain of [await get(), await get("identity"), await get("gzip;q=0, br;q=0")]) {
      const b = await body(plain);
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect(plain.headers.get("vary")).toBe("Accept-Encoding");
      expect(text(b)).toBe(SCRIPT);
      expect(Number(plain.headers.get("content-length"))).toBe(SCRIPT.length);
    }
  });

  test("an asset with only a gzip twin, a small asset without twins, and the twins' own names", async () => {
    t = await makeTestApp({ deps: { assets: builtAssets() } });
    const css = await t.request("GET", "/assets/index-efgh5678.css", { headers: { "accept-encoding": "br, gzip" } });
    expect(css.headers.get("content-encoding")).toBe("gzip");
    expect(text(gunzipSync(await body(css)))).toBe(STYLE);

    const tiny = await t.request("GET", "/assets/tiny-ijkl9012.js", { headers: { "accept-encoding": "br, gzip" } });
    expect(tiny.headers.get("content-encoding")).toBeNull();
    expect(tiny.headers.get("vary")).toBeNull();
    expect(await tiny.text()).toBe("1");

    for (const twin of ["/assets/index-abcd1234.js.gz", "/assets/index-abcd1234.js.br"]) {
      expect((await t.request("GET", twin, { headers: { "accept-encoding": "br, gzip" } })).status).toBe(404);
    }
  });
});

describe("compressed JSON API responses", () => {
  test("a JSON answer over the threshold is gzip when accepted, the same JSON when decoded, plain otherwise", async () => {
    t = await makeTestApp();
    const plain = await t.request("GET", "/api/openapi.json");
    const plainText = await plain.text();
    expect(plain.status).toBe(200);
    expect(plainText.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary") ?? "").toContain("Accept-Encoding");

    const zipped = await t.request("GET", "/api/openapi.json", { headers: { "accept-encoding": "gzip, deflate, br" } });
    const zippedBody = await body(zipped);
    expect(zipped.status).toBe(200);
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("content-type")).toContain("application/json");
    expect(zipped.headers.get("vary") ?? "").toContain("Accept-Encoding");
    expect(Number(zipped.headers.get("content-length"))).toBe(zippedBody.length);
    expect(zippedBody.length).toBeLessThan(plainText.length / 3);
    expect(JSON.parse(text(gunzipSync(zippedBody)))).toEqual(JSON.parse(plainText));
    // the security headers still come with it
    expect(zipped.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("small JSON, HEAD and an error keep their body as it is", async () => {
    t = await makeTestApp();
    const health = await t.request("GET", "/healthz", { headers: { "accept-encoding": "gzip" } });
    expect(health.headers.get("content-encoding")).toBeNull();
    expect((await health.json()).status).toBe("ok");

    const head = await t.request("HEAD", "/api/openapi.json", { headers: { "accept-encoding": "gzip" } });
    expect(head.headers.get("content-encoding")).toBeNull();

    const missing = await t.request("GET", "/api/no-such-thing", { headers: { "accept-encoding": "gzip" } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-encoding")).toBeNull();
    expect(await missing.json()).toEqual({ error: { code: "not_found", message: "No such endpoint." } });
  });

  test("Accept-Encoding is read as RFC 9110 says: q=0 refuses, * stands for the others, x-gzip is gzip", () => {
    expect([...acceptedEncodings("gzip, deflate, br")].sort()).toEqual(["br", "deflate", "gzip"]);
    expect([...acceptedEncodings("br;q=0, gzip;q=0.8")]).toEqual(["gzip"]);
    expect([...acceptedEncodings("*;q=0.1, br;q=0")]).toEqual(["gzip"]);
    expect([...acceptedEncodings("x-gzip")]).toEqual(["gzip"]);
    expect([...acceptedEncodings("identity")]).toEqual(["identity"]);
    expect(acceptedEncodings(null).size).toBe(0);
  });
});
