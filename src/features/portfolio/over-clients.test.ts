import { describe, expect, test } from "bun:test";
import { byOrg, groupBy } from "./over-clients";

describe("groupBy", () => {
  const rows = [
    { orgId: "b", domainId: "d2", n: 1 },
    { orgId: "a", domainId: "d1", n: 2 },
    { orgId: "b", domainId: "d1", n: 3 },
  ];
  test("by organization: keys in the order first met, rows in the order they came", () => {
    expect([...groupBy(rows, byOrg)].map(([k, list]) => [k, list.map((r) => r.n)])).toEqual([
      ["b", [1, 3]],
      ["a", [2]],
    ]);
  });
  test("by the given key", () => {
    expect([...groupBy(rows, (r) => r.domainId)].map(([k, list]) => [k, list.map((r) => r.n)])).toEqual([
      ["d2", [1]],
      ["d1", [2, 3]],
    ]);
  });
});
