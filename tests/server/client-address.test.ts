/**
 * Which address the rate limits see behind a reverse proxy: a client can write anything on the
 * left of X-Forwarded-For, so rotating it must not reset the contact form's limit.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { parseConfig, ConfigError } from "../../src/config";
import { CONTACT_RATE_LIMIT } from "../../src/features/contact/contract";
import { makeTestApp, type TestApp } from "../support/app";

let t: TestApp | undefined;
afterEach(() => t?.close());

const message = {
  name: "Dana Whitfield",
  email: "dana@whitfield-law.example",
  company: "Whitfield Law",
  subject: "Pricing for 12 domains",
  message: "We run twelve domains and would like to know which plan fits us best.",
};

/** An app whose requests arrive from `peer` (the socket address a listening server would report). */
async function appBehind(peer: string, config: { trustProxy?: boolean; trustedProxies?: string[] }) {
  t = await makeTestApp({ config: { trustProxy: config.trustProxy ?? false }, deps: { server: { requestIP: () => ({ address: peer }) } } });
  t.deps.config.trustedProxies = config.trustedProxies ?? [];
  return t;
}

const contact = (app: TestApp, forwardedFor?: string) => app.json("POST", "/api/contact", { body: message, headers: forwardedFor ? { "x-forwarded-for": forwardedFor } : {} });

/** Sends one more message than the limit, each with another spoofed left-most entry; the statuses. */
async function rotateSpoofedEntry(app: TestApp, realChain: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 1; i <= CONTACT_RATE_LIMIT.limit + 1; i++) statuses.push((await contact(app, `192.0.2.${i}, ${realChain}`)).status);
  return statuses;
}

const LIMIT_TRIPS = [...Array(CONTACT_RATE_LIMIT.limit).fill(201), 429];

describe("--trust-proxy (one proxy in front)", () => {
  test("the right-most X-Forwarded-For entry is the client: a rotated left-most entry does not escape the contact limit", async () => {
    const app = await appBehind("10.0.0.2", { trustProxy: true });
    expect(await rotateSpoofedEntry(app, "198.51.100.7")).toEqual(LIMIT_TRIPS);
    // another real client behind the same proxy is not affected
    expect((await contact(app, "192.0.2.1, 198.51.100.8")).status).toBe(201);
  });

  test("an entry with a port counts as its address; a garbage right-most entry falls back to the proxy's address", async () => {
    const app = await appBehind("10.0.0.2", { trustProxy: true });
    for (let i = 0; i < CONTACT_RATE_LIMIT.limit; i++) expect((await contact(app, `198.51.100.7:${40000 + i}`)).status).toBe(201);
    expect((await contact(app, "198.51.100.7")).status).toBe(429);
    for (let i = 0; i < CONTACT_RATE_LIMIT.limit; i++) expect((await contact(app, `198.51.100.9, not-an-address-${i}`)).status).toBe(201);
    expect((await contact(app, "198.51.100.9, something-else")).status).toBe(429);
  });
});

describe("--trusted-proxies", () => {
  test("entries are read from the right skipping trusted proxies: the right-most untrusted one is the client", async () => {
    const app = await appBehind("10.0.0.2", { trustedProxies: ["10.0.0.0/8", "2001:db8:feed::/48"] });
    expect(await rotateSpoofedEntry(app, "198.51.100.7, 10.1.2.3, 2001:db8:feed::5")).toEqual(LIMIT_TRIPS);
    expect((await contact(app, "198.51.100.7, 10.1.2.3")).status).toBe(429);
    // the real client's neighbour, who reached the same proxies, still gets through
    expect((await contact(app, "198.51.100.8, 10.1.2.3")).status).toBe(201);
  });

  test("X-Forwarded-For from a peer that is not a trusted proxy is ignored: the peer is the client", async () => {
    const app = await appBehind("203.0.113.50", { trustedProxies: ["10.0.0.0/8"] });
    expect(await rotateSpoofedEntry(app, "198.51.100.7")).toEqual(LIMIT_TRIPS);
  });

  test("without any proxy flag X-Forwarded-For is ignored", async () => {
    const app = await appBehind("203.0.113.50", {});
    const statuses: number[] = [];
    for (let i = 1; i <= CONTACT_RATE_LIMIT.limit + 1; i++) statuses.push((await contact(app, `198.51.100.${i}`)).status);
    expect(statuses).toEqual(LIMIT_TRIPS);
  });

  test("the flag and its environment twin take addresses and CIDR ranges and refuse anything else", () => {
    expect(parseConfig(["--trusted-proxies", "10.0.0.0/8,192.168.1.1", "--trusted-proxies", "fd00::/8"], {}).trustedProxies).toEqual(["10.0.0.0/8", "192.168.1.1", "fd00::/8"]);
    expect(parseConfig([], { TRUSTED_PROXIES: "172.16.0.0/12, ::1" }).trustedProxies).toEqual(["172.16.0.0/12", "::1"]);
    expect(() => parseConfig(["--trusted-proxies", "proxy.internal"], {})).toThrow(ConfigError);
    expect(() => parseConfig([], { TRUSTED_PROXIES: "10.0.0.0/40" })).toThrow('"10.0.0.0/40" is not an IP address or CIDR range');
  });
});
