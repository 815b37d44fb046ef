import { describe, expect, test } from "bun:test";
import { cidrContains, ipv4Number, isPublicAddress, nonPublicReason, normalizeAddress, parseAddress, parseCidr } from "./address";

describe("parseAddress / normalizeAddress", () => {
  test.each([
    ["192.0.2.1", "192.0.2.1"],
    ["0.0.0.0", "0.0.0.0"],
    ["255.255.255.255", "255.255.255.255"],
    ["::", "::"],
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["2001:db8::", "2001:db8::"],
    ["fe80::1%eth0", "fe80::1"],
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["::ffff:7f00:1", "127.0.0.1"],
    ["64:ff9b::10.0.0.1", "64:ff9b::a00:1"],
    ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
    ["1:0:0:2:0:0:0:3", "1:0:0:2::3"],
  ])("%s → %s", (text, canonical) => {
    expect(normalizeAddress(text)).toBe(canonical);
  });

  test.each(["", "127.1", "0x7f.0.0.1", "0177.0.0.1", "2130706433", "256.0.0.1", "1.2.3.4.5", "1.2.3", "localhost", "1:2:3:4:5:6:7:8:9", "1::2::3", "1:::2", ":1::", "12345::", "::ffff:1.2.3", "1.2.3.4:80", "g::1"])(
    "%p is not an address",
    (text) => {
      expect(parseAddress(text)).toBeNull();
    },
  );
});

describe("CIDR ranges", () => {
  test("membership by prefix, IPv4-mapped addresses match IPv4 ranges", () => {
    const private10 = parseCidr("10.0.0.0/8")!;
    expect(cidrContains(private10, parseAddress("10.255.1.2")!)).toBe(true);
    expect(cidrContains(private10, parseAddress("11.0.0.1")!)).toBe(false);
    expect(cidrContains(private10, parseAddress("::ffff:10.1.2.3")!)).toBe(true);
    const odd = parseCidr("100.64.0.0/10")!;
    expect(cidrContains(odd, parseAddress("100.127.255.255")!)).toBe(true);
    expect(cidrContains(odd, parseAddress("100.128.0.0")!)).toBe(false);
    const v6 = parseCidr("2001:db8:ab00::/40")!;
    expect(cidrContains(v6, parseAddress("2001:db8:abff::1")!)).toBe(true);
    expect(cidrContains(v6, parseAddress("2001:db8:ac00::1")!)).toBe(false);
    expect(cidrContains(parseCidr("203.0.113.7")!, parseAddress("203.0.113.7")!)).toBe(true);
    expect(cidrContains(parseCidr("203.0.113.7")!, parseAddress("203.0.113.8")!)).toBe(false);
    expect(cidrContains(parseCidr("0.0.0.0/0")!, parseAddress("8.8.8.8")!)).toBe(true);
  });

  test.each(["10.0.0.0/33", "::/129", "10.0.0.0/x", "10.0.0.0/8/8", "10.0.0/8", "example.com/24", ""])("%p is not a range", (text) => {
    expect(parseCidr(text)).toBeNull();
  });
});

describe("which addresses are public", () => {
  test.each([
    ["0.0.0.0", "this network"],
    ["0.1.2.3", "this network"],
    ["10.0.0.1", "private"],
    ["100.64.0.1", "shared address space (carrier-grade NAT)"],
    ["100.100.100.200", "shared address space (carrier-grade NAT)"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.192", "IETF protocol assignments"],
    ["192.0.2.10", "documentation"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
    ["168.63.129.16", "cloud metadata (Azure)"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "link-local (cloud metadata)"],
    ["::ffff:a00:1", "private"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["2002:7f00:1::", "loopback"],
    ["::127.0.0.1", "IPv4-compatible (deprecated)"],
    ["fc00::1", "unique local (incl. cloud metadata fd00:ec2::254)"],
    ["fd00:ec2::254", "unique local (incl. cloud metadata fd00:ec2::254)"],
    ["fe80::1", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "documentation"],
    ["2001::1", "IETF protocol assignments"],
    ["100::1", "discard"],
    ["4000::1", "not global unicast"],
  ])("%s is not public (%s)", (text, reason) => {
    expect(nonPublicReason(parseAddress(text)!)).toBe(reason);
    expect(isPublicAddress(text)).toBe(false);
  });

  test.each(["8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "192.169.0.1", "198.17.255.255", "198.20.0.0", "223.255.255.255", "168.63.129.17", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1", "2606:4700:4700::1111", "2a00:1450:4001::1"])(
    "%s is public",
    (text) => {
      expect(isPublicAddress(text)).toBe(true);
    },
  );

  test("text that is not an address is never public", () => {
    expect(isPublicAddress("127.1")).toBe(false);
    expect(isPublicAddress("example.com")).toBe(false);
  });
});

describe("ipv4Number", () => {
  test("reads canonical dotted quads", () => {
    expect(ipv4Number("0.0.0.0")).toBe(0);
    expect(ipv4Number("255.255.255.255")).toBe(0xffffffff);
    expect(ipv4Number("192.0.2.10")).toBe(0xc000020a);
    expect(ipv4Number("10.200.1.1")).toBe((10 << 24) + (200 << 16) + (1 << 8) + 1);
  });
  test("refuses anything else: short forms, leading zeros, parts over 255, IPv6", () => {
    for (const bad of ["", "1.2.3", "1.2.3.4.5", "1.2.3.256", "01.2.3.4", "1.2.3.04", "1..3.4", "1.2.3.", ".1.2.3", "1.2.3.4 ", "a.b.c.d", "::1", "::ffff:1.2.3.4", "1.2.3.-4", "1234.1.1.1"]) {
      expect([bad, ipv4Number(bad)]).toEqual([bad, -1]);
    }
  });
});
