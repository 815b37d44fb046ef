/**
 * "Check now" right after publishing a record: the check asks the DNS server afresh instead of
 * answering from the cache filled by the previous check (which still says "no record"), and the
 * new answer replaces the cached one. A scheduled check keeps using the cache.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { domains } from "../../src/db/schema";
import { createResolver } from "../../src/features/dns/resolver";
import { makeTestApp, type TestApp } from "../support/app";
import { startDnsServer, type TestDnsServer } from "../support/dns-server";
import { signedInMember } from "../support/fixtures";

let dns: TestDnsServer;
let t: TestApp;
beforeAll(async () => {
  dns = await startDnsServer({ "fresh.test": { TXT: ["v=spf1 -all"] } });
  const resolver = createResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 1000, retries: 0 });
  t = await makeTestApp({ config: { smtpProbePort: 0 }, deps: { resolver } });
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
});

test("Check now after publishing DMARC finds the new record, although the last check cached its absence", async () => {
  const owner = await signedInMember(t.deps.store, "owner");
  const [row] = await t.deps.store.db.insert(domains).values({ orgId: owner.orgId, name: "fresh.test" }).returning({ id: domains.id });
  const first = await t.json("POST", `/api/domains/${row!.id}/check`, { cookie: owner.cookie });
  expect(first.status).toBe(200);
  expect(first.body.domain.dmarcPolicy).toBe("missing");

  dns.zone["_dmarc.fresh.test"] = { TXT: ["v=DMARC1; p=none; rua=mailto:dmarc@fresh.test"] };
  const asked = dns.questions.filter((q) => q === "TXT _dmarc.fresh.test").length;
  const again = await t.json("POST", `/api/domains/${row!.id}/check`, { cookie: owner.cookie });
  expect(again.status).toBe(200);
  expect(again.body.domain.dmarcPolicy).toBe("none");
  expect(dns.questions.filter((q) => q === "TXT _dmarc.fresh.test").length).toBeGreaterThan(asked);

  // the fresh answer is what the cache holds now: the domain page reads the record too
  const page = await t.json("GET", `/api/domains/${row!.id}`, { cookie: owner.cookie });
  expect(page.status).toBe(200);
  expect(JSON.stringify(page.body.analysis.dmarc)).toContain("p=none");
});
