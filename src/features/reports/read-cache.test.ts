import { expect, test } from "bun:test";
import { KeptAnswers, READ_CACHE_ANSWER_CHARS, READ_CACHE_CHARS, READ_CACHE_ENTRIES } from "./read-cache";

test("kept answers: served only for their version, least recently used dropped first, within the entry and size bounds", () => {
  const kept = new KeptAnswers();
  const k = (id: string, version: number, value: unknown) => kept.keep(id, { version, value, orgId: "o", compute: async () => value, readAt: 0 });
  k("a", 1, ["x"]);
  expect(kept.get("a", 1)?.value).toEqual(["x"]);
  expect(kept.get("a", 2)).toBeUndefined();
  k("a", 2, ["y"]);
  expect(kept.get("a", 1)).toBeUndefined();
  expect(kept.get("a", 2)?.value).toEqual(["y"]);

  // more answers than the bound: the least recently used go ("a" was just read, so it stays)
  k("b", 1, "b");
  kept.get("a", 2);
  for (let i = 0; i < READ_CACHE_ENTRIES - 1; i++) k(`n${i}`, 1, i);
  expect(kept.entries.size).toBe(READ_CACHE_ENTRIES);
  expect(kept.get("b", 1)).toBeUndefined();
  expect(kept.get("a", 2)?.value).toEqual(["y"]);

  // large answers: the total stays within READ_CACHE_CHARS; one above READ_CACHE_ANSWER_CHARS is never kept
  const big = "z".repeat(READ_CACHE_ANSWER_CHARS - 10);
  for (let i = 0; i < 12; i++) k(`big${i}`, 1, big);
  expect(kept.chars).toBeLessThanOrEqual(READ_CACHE_CHARS);
  expect(kept.get("big11", 1)?.value).toBe(big);
  expect(kept.get("big0", 1)).toBeUndefined();
  k("huge", 1, "z".repeat(READ_CACHE_ANSWER_CHARS + 1));
  expect(kept.get("huge", 1)).toBeUndefined();
  // the sum counted is the sum kept
  expect(kept.chars).toBe([...kept.entries.values()].reduce((n, e) => n + e.chars, 0));
});
