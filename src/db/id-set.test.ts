import { describe, expect, test } from "bun:test";
import { inChunks } from "./id-set";

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
