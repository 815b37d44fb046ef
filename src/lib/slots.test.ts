import { expect, test } from "bun:test";
import { Slots } from "./slots";

test("at most `size` tasks run at once; the others wait their turn in order", async () => {
  const slots = new Slots(2);
  const started: number[] = [];
  const finish = new Map<number, () => void>();
  const task = (n: number) => () => {
    started.push(n);
    return new Promise<number>((resolve) => finish.set(n, () => resolve(n * 10)));
  };
  const results = [1, 2, 3, 4].map((n) => slots.run(task(n)));
  await Promise.resolve();
  expect(started).toEqual([1, 2]);
  expect([slots.inFlight, slots.waiting]).toEqual([2, 2]);
  finish.get(2)!();
  await Bun.sleep(0);
  expect(started).toEqual([1, 2, 3]);
  expect([slots.inFlight, slots.waiting]).toEqual([2, 1]);
  finish.get(1)!();
  finish.get(3)!();
  await Bun.sleep(0);
  finish.get(4)!();
  expect(await Promise.all(results)).toEqual([10, 20, 30, 40]);
  expect([slots.inFlight, slots.waiting]).toEqual([0, 0]);
});

test("a task that fails frees its slot for the next", async () => {
  const slots = new Slots(1);
  const failing = slots.run(async () => {
    throw new Error("boom");
  });
  const next = slots.run(async () => "ran");
  await expect(failing).rejects.toThrow("boom");
  expect(await next).toBe("ran");
  expect(slots.inFlight).toBe(0);
});

test("a size below one is refused", () => {
  expect(() => new Slots(0)).toThrow(RangeError);
});

test("at most `size` tasks run and `maxWaiting` wait; the rest answer `skipped` at once; waiting ones run in order", async () => {
  const slots = new Slots(2, 3);
  const releases: (() => void)[] = [];
  const started: number[] = [];
  const results = Array.from({ length: 8 }, (_, i) =>
    slots.runOrSkip(
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
});
