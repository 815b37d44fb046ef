/** PTR lookups on a worker thread answer what the resolver here answers. */
import { afterAll, expect, test } from "bun:test";
import { startDnsServer, type TestDnsServer } from "../../../tests/support/dns-server";
import { createResolver } from "../dns/resolver";
import { reverseOnWorker } from "./ptr-remote";

let dns: TestDnsServer;
afterAll(async () => dns?.close());

test("reverse() goes to the worker and answers as the resolver here; other lookups stay here; after close() the resolver here answers", async () => {
  dns = await startDnsServer({
    "41.220.85.209.in-addr.arpa": { PTR: ["mail-sor-f41.google.com."] },
    "7.100.51.198.in-addr.arpa": { PTR: ["a.example.net.", "b.example.net."] },
    "example.com": { TXT: ["v=spf1 -all"] },
  });
  const options = { servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000 };
  const here = createResolver({ ...options, retries: 0 });
  const lost: string[] = [];
  const remote = reverseOnWorker(here, options, (reason) => lost.push(reason));
  try {
    const ips = ["209.85.220.41", "198.51.100.7", "192.0.2.1", "2001:db8::1"];
    const before = here.queryCount;
    const answers = await Promise.all(ips.map((ip) => remote.reverse(ip)));
    // the lookups did not use the resolver here
    expect(here.queryCount).toBe(before);
    expect(answers).toEqual(await Promise.all(ips.map((ip) => here.reverse(ip))));
    expect(answers[0]).toEqual(["mail-sor-f41.google.com"]);
    expect((await remote.txt("example.com")).records).toEqual((await here.txt("example.com")).records);
    expect(lost).toEqual([]);
  } finally {
    remote.close();
  }
  here.clearCache();
  expect(await remote.reverse("209.85.220.41")).toEqual(["mail-sor-f41.google.com"]);
});
