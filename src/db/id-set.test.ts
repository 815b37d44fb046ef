import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { makeTestApp } from "../../tests/support/app";
import { inChunks, oneOf, textArray } from "./id-set";

describe("oneOf", () => {
  test("matches exactly the given values, whatever characters they hold, on the store of the run", async () => {
    const t = await makeTestApp();
    try {
      const values = ['quote"d', "back\\slash", "com,ma", "{braces}", "NULL", "sp ace", "", "é", "plain"];
      const table = sql.join(values.map((v) => sql`SELECT ${v} AS v`), sql` UNION ALL `);
      const picked = async (ids: string[]) =>
        (await t.deps.store.rows<{ v: string }>(sql`SELECT v FROM (${table}) x WHERE ${oneOf(t.deps.store.dialect, sql`v`, ids)}`)).map((r) => r.v).sort();
      expect(await picked(values)).toEqual([...values].sort());
      expect(await picked(['quote"d', "NULL", "", "missing", "back\\"])).toEqual(["", "NULL", 'quote"d']);
      expect(await picked([])).toEqual([]);
    } finally {
      await t.close();
    }
  });

  test("PostgreSQL's text form of an array quotes every value", () => {
    expect(textArray(["a", 'b"c', "d\\e", "f,g"])).toBe('{"a","b\\"c","d\\\\e","f,g"}');
    expect(textArray([])).toBe("{}");
  });
});

describe("inChunks", () => {
  test("reads each slice once, in order, at most `size` at a time, and concatenates the rows in that order", async () => {
    const list = Array.from({ length: 1001 }, (_, i) => `ip${i}`);
    const calls: string[][] = [];
    let running = 0;
    const rows = await inChunks(list, 500, async (chunk) => {
      expect(++running).toBe(1); // one statement at a time
      calls.push(chunk);
      await Promise.resolve();
      running--;
      return chunk.map((v) => `${v}!`);
    });
    expect(calls.map((c) => c.length)).toEqual([500, 500, 1]);
    expect(calls.flat()).toEqual(list);
    expect(rows).toEqual(list.map((v) => `${v}!`));
  });

  test("an empty list runs no statement", async () => {
    let called = false;
    expect(await inChunks([], 500, async () => ((called = true), [1]))).toEqual([]);
    expect(called).toBe(false);
  });
});
