import { describe, expect, test } from "bun:test";
import { conditionKey, conditionScope, updateConditions } from "./conditions";
import type { AlertEvent } from "./events";

const spf = (domain: string): AlertEvent => ({ type: "dns.spf_too_many_lookups", domain, data: {}, dedupeKey: conditionKey("dns.spf_too_many_lookups", domain) });
const scope = conditionScope("example.com", ["dns.spf_too_many_lookups", "dns.dkim_weak_key"]);

describe("one alert per cause", () => {
  test("a condition fires once, stays quiet while it holds, clears, and fires again when it returns", () => {
    let active: string[] = [];
    const first = updateConditions(active, [spf("example.com")], scope);
    expect(first.fire.map((e) => e.type)).toEqual(["dns.spf_too_many_lookups"]);
    active = first.active;

    const again = updateConditions(active, [spf("example.com")], scope);
    expect(again.fire).toEqual([]);
    expect(again.cleared).toEqual([]);
    active = again.active;

    const fixed = updateConditions(active, [], scope);
    expect(fixed.fire).toEqual([]);
    expect(fixed.cleared).toEqual([conditionKey("dns.spf_too_many_lookups", "example.com")]);
    active = fixed.active;
    expect(active).toEqual([]);

    expect(updateConditions(active, [spf("example.com")], scope).fire).toHaveLength(1);
  });

  test("keys outside the evaluated scope (another domain, another kind of check) are kept, not cleared", () => {
    const other = conditionKey("dns.spf_too_many_lookups", "other.org");
    const stopped = conditionKey("reports.stopped", "example.com");
    const result = updateConditions([other, stopped], [], scope);
    expect(result.cleared).toEqual([]);
    expect(result.active.sort()).toEqual([other, stopped].sort());
  });

  test("the same condition twice in one check fires once", () => {
    expect(updateConditions([], [spf("example.com"), spf("EXAMPLE.com")], scope).fire).toHaveLength(1);
  });

  test("a condition outside the scope is a programming error, not a silent alert", () => {
    expect(() => updateConditions([], [spf("other.org")], scope)).toThrow(/outside/);
  });

  test("a domain's scope does not swallow a longer domain that starts with the same name", () => {
    expect(scope(conditionKey("dns.spf_too_many_lookups", "example.com.evil"))).toBe(false);
    expect(scope(conditionKey("dns.dkim_weak_key", "example.com", "s1"))).toBe(true);
  });
});
