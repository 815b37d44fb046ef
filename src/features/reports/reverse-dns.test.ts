/** The bound on reverse DNS lookups: so many under way, so many waiting, the rest not made. */
import { expect, test } from "bun:test";
import { MAX_IN_FLIGHT, MAX_WAITING, Slots } from "./reverse-dns";

test("at most `size` tasks run and `maxWaiting` wait; the rest answer `skipped` at once; waiting ones run in order", async () => {
  const slots = new Slots(2, 3);
  const releases: (() => void)[] = [];
  const started: number[] = [];
  const results = Array.from({ length: 8 }, (_, i) =>
    slots.run(
      () =>
        new Promise<string>((resolve) => {
          started.push(i);
          releases.push(() => resolve(`ran ${i}`));
        }),
      `skipped ${i}`,
    ),
  );
  await Promise.resolve();
  expect(started).toEqual([0, 1]);
  expect([slots.inFlight, slots.waiting]).toEqual([2, 3]);
  // 5, 6 and 7 found two running and three waiting
  expect(await Promise.all(results.slice(5))).toEqual(["skipped 5", "skipped 6", "skipped 7"]);
  while (releases.length) {
    releases.shift()!();
    await new Promise((r) => setTimeout(r, 0));
  }
  expect(await Promise.all(results.slice(0, 5))).toEqual(["ran 0", "ran 1", "ran 2", "ran 3", "ran 4"]);
  expect(started).toEqual([0, 1, 2, 3, 4]);
  expect([slots.inFlight, slots.waiting]).toEqual([0, 0]);
  expect([MAX_IN_FLIGHT, MAX_WAITING]).toEqual([64, 10_000]);
});
