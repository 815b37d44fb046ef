/**
 * The outbound guard over HTTPS: the connection goes to the checked loopback address while TLS
 * names the host (SNI) and the certificate is verified for that name, not for the address.
 * A local CA (tests/support/test-ca.ts) signs the receiver's certificates.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import https from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import { startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { createTestCa, type TestCa } from "../../../tests/support/test-ca";
import { createResolver, type DnsResolver } from "../dns/resolver";
import { OutboundError, outboundFetch, readBounded } from "./outbound";

let ca: TestCa;
let dns: TestDnsServer;
let resolver: DnsResolver;
let server: https.Server;
let port: number;
const seen: { sni: string | false | null; host: string | undefined; path: string | undefined }[] = [];

beforeAll(async () => {
  ca = createTestCa();
  const leaf = ca.leaf(["secure-hooks.customer.test"]);
  server = https.createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    seen.push({ sni: (req.socket as TLSSocket).servername, host: req.headers.host, path: req.url });
    if (req.url === "/moved") {
      res.writeHead(302, { location: "https://secure-hooks.customer.test/elsewhere" }).end();
      return;
    }
    res.end(req.url === "/big" ? "x".repeat(4096) : "ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  dns = await startDnsServer({
    "secure-hooks.customer.test": { A: ["127.0.0.1"], ttl: 0 },
    // the same receiver under a name its certificate does not carry
    "other-name.customer.test": { A: ["127.0.0.1"], ttl: 0 },
  });
  resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000 });
});
afterAll(async () => {
  server.close();
  await dns.close();
  ca.cleanup();
});

const policy = () => ({ allowPrivate: true, flag: "--allow-private-webhook-hosts", ca: [ca.caPem] });

describe("outboundFetch over HTTPS to a name's checked address", () => {
  test("TLS names the host and the certificate is verified for it; the Host header names it too", async () => {
    seen.length = 0;
    const res = await outboundFetch({ resolver }, `https://secure-hooks.customer.test:${port}/hook?x=1`, { method: "POST", body: "{}", timeoutMs: 5000 }, policy());
    expect(res.status).toBe(200);
    expect(new TextDecoder().decode(await readBounded(res, 100, "the receiver"))).toBe("ok");
    expect(seen).toEqual([{ sni: "secure-hooks.customer.test", host: `secure-hooks.customer.test:${port}`, path: "/hook?x=1" }]);
  });

  test("a certificate that is not for the name refuses the connection before the request is sent", async () => {
    seen.length = 0;
    const error = await outboundFetch({ resolver }, `https://other-name.customer.test:${port}/hook`, { method: "POST", body: "{}", timeoutMs: 5000 }, policy()).catch((e: unknown) => e);
    expect(String((error as { code?: string }).code ?? error)).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(seen).toEqual([]);
  });

  test("a redirect is answered as it is, never followed; an answer past its bound is refused", async () => {
    seen.length = 0;
    const moved = await outboundFetch({ resolver }, `https://secure-hooks.customer.test:${port}/moved`, { timeoutMs: 5000 }, policy());
    expect(moved.status).toBe(302);
    await moved.body?.cancel();
    expect(seen.map((s) => s.path)).toEqual(["/moved"]);
    const big = await outboundFetch({ resolver }, `https://secure-hooks.customer.test:${port}/big`, { timeoutMs: 5000 }, policy());
    const error = await readBounded(big, 1024, "the receiver").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect((error as OutboundError).message).toBe("the receiver answered more than 1024 bytes");
  });
});
