/**
 * Every place in the server's code that opens a network connection or sends an HTTP request is
 * either the outbound guard (outbound.ts) or listed here with why it may connect by itself: a
 * new direct `fetch(` to a URL an organization gave would otherwise skip the address check.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../../..");

/** file → why its own network calls are safe */
const ALLOWED: Record<string, string> = {
  "src/features/net/outbound.ts": "the guard itself: connects only to the address it checked",
  "src/features/mailin/oauth-providers.ts": "Google and Microsoft token and mail API endpoints: fixed hosts or the operator's --*-url settings, never an organization's",
  "src/features/openapi/docs-page.ts": "script text of the API docs page, run by the reader's browser against this server",
  "src/features/dns/probes.ts": "MTA-STS, BIMI and STARTTLS probes: resolve once and connect to the checked address (probeAddress)",
  "src/features/dns/resolver.ts": "DNS questions to the operator's --dns-server (or the system's) servers",
};

/** a call that opens a connection or sends a request, or a module that does */
const NETWORK = [
  /(?<![\w.$])fetch\s*\(/,
  /\b(?:https?|tls|net|dgram|http2)\.(?:request|get|connect|createConnection|createSocket)\s*\(/,
  /\bBun\.connect\s*\(/,
  /\bnew\s+WebSocket\s*\(/,
  /from\s+["'](?:node:)?(?:https?|http2|tls|undici|axios|node-fetch)["']/,
  /import\s+\w+\s*(?:,\s*\{[^}]*\})?\s+from\s+["'](?:node:)?(?:net|dgram)["']/,
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative(ROOT, path)] : [];
  });
}

describe("network calls in the server's code", () => {
  test("go through the outbound guard unless listed with a reason", () => {
    const found = new Map<string, string[]>();
    for (const file of sources(join(ROOT, "src"))) {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      // comment lines name calls without making them
      const code = (line: string) => !/^\s*(\*|\/\/|\/\*)/.test(line);
      const hits = lines.flatMap((line, i) => (code(line) && NETWORK.some((pattern) => pattern.test(line)) ? [`${file}:${i + 1}: ${line.trim().slice(0, 120)}`] : []));
      if (hits.length) found.set(file, hits);
    }
    const unlisted = [...found].filter(([file]) => !(file in ALLOWED)).flatMap(([, hits]) => hits);
    expect(unlisted).toEqual([]);
    // a listed file that no longer calls out is taken off the list
    expect(Object.keys(ALLOWED).filter((file) => !found.has(file))).toEqual([]);
  });

  test("alert deliveries and the single sign-on issuer use it", () => {
    for (const file of ["src/features/alerts/delivery.ts", "src/features/sso/issuer.ts"]) expect(readFileSync(join(ROOT, file), "utf8")).toContain("outboundFetch(");
  });
});
