import { acceptedEncodings } from "./spa";

/** JSON bodies at least this long are sent gzip-compressed to clients that accept gzip. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Compresses a JSON API response with gzip when the client accepts it and the body is at
 * least COMPRESS_MIN_BYTES: `Content-Encoding: gzip`, `Vary: Accept-Encoding`, the compressed
 * length. Anything else passes untouched: other types (CSV downloads stream, the SPA's assets
 * come precompressed), HEAD, bodiless statuses, bodies already encoded, `no-transform`.
 */
export async function compressJson(request: Request, response: Response): Promise<Response> {
  if (request.method === "HEAD" || !response.body || response.status === 204 || response.status === 304) return response;
  const type = response.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) return response;
  if (response.headers.has("content-encoding") || /\bno-transform\b/i.test(response.headers.get("cache-control") ?? "")) return response;
  const declared = Number(response.headers.get("content-length") ?? NaN);
  if (Number.isFinite(declared) && declared < COMPRESS_MIN_BYTES) return response;
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  const init = { status: response.status, statusText: response.statusText, headers };
  if (body.length < COMPRESS_MIN_BYTES) return new Response(body, init);
  const vary = headers.get("vary");
  if (!vary || !/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) headers.set("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
  if (!acceptedEncodings(request.headers.get("accept-encoding")).has("gzip")) return new Response(body, init);
  const compressed = Bun.gzipSync(body, { level: 6 });
  headers.set("content-encoding", "gzip");
  headers.set("content-length", String(compressed.length));
  return new Response(compressed, init);
}
