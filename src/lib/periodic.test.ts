import { describe, expect, test } from "bun:test";
import { periodic } from "./periodic";

const HOUR = 3_600_000;

/** A promise with its resolve, for runs a test ends by hand. */
function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

describe("periodic", () => {
  test('firstAfterMs "now" runs once before it returns', async () => {
    let runs = 0;
    const job = periodic({ everyMs: HOUR, firstAfterMs: "now", run: () => void runs++ });
    expect(runs).toBe(1);
    await job.stop();
  });

  test("the first run comes after firstAfterMs, then every everyMs", async () => {
    const seen = gate();
    let runs = 0;
    const job = periodic({ everyMs: 5, firstAfterMs: 0, run: () => void (++runs === 3 && seen.open()) });
    expect(runs).toBe(0);
    await seen.closed;
    await job.stop();
    const after = runs;
    await Bun.sleep(30);
    expect(runs).toBe(after);
  });

  test("without firstAfterMs nothing runs before the first interval", async () => {
    let runs = 0;
    const job = periodic({ everyMs: HOUR, run: () => void runs++ });
    await Bun.sleep(10);
    expect(runs).toBe(0);
    await job.stop();
  });

  test("runs never overlap: a run asked for while one runs is dropped", async () => {
    const release = gate();
    let runs = 0;
    let active = 0;
    let most = 0;
    const job = periodic({
      everyMs: HOUR,
      run: async () => {
        runs++;
        most = Math.max(most, ++active);
        await release.closed;
        active--;
      },
    });
    const first = job.runNow();
    const second = job.runNow();
    release.open();
    await Promise.all([first, second]);
    expect(runs).toBe(1);
    expect(most).toBe(1);
    await job.runNow();
    expect(runs).toBe(2);
    await job.stop();
  });

  test("repeatIfAsked: a run asked for while one runs follows it once", async () => {
    const release = gate();
    let runs = 0;
    const job = periodic({
      everyMs: HOUR,
      repeatIfAsked: true,
      run: async () => {
        if (++runs === 1) await release.closed;
      },
    });
    const first = job.runNow();
    void job.runNow();
    void job.runNow();
    release.open();
    await first;
    expect(runs).toBe(2);
    await job.stop();
  });

  test("a failed run goes to onError and the job goes on", async () => {
    const errors: unknown[] = [];
    let runs = 0;
    const job = periodic({
      everyMs: HOUR,
      run: () => {
        if (++runs === 1) throw new Error("relay down");
      },
      onError: (error) => errors.push(error),
    });
    await job.runNow();
    await job.runNow();
    expect(runs).toBe(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(["relay down"]);
    await job.stop();
  });

  test("stop() waits for the running run, tells it, and no run starts after", async () => {
    const release = gate();
    let sawStop = false;
    let finished = false;
    let runs = 0;
    const job = periodic({
      everyMs: 5,
      run: async (self) => {
        runs++;
        await release.closed;
        sawStop = self.stopped;
        finished = true;
      },
    });
    void job.runNow();
    const stopping = job.stop();
    release.open();
    await stopping;
    expect(finished).toBe(true);
    expect(sawStop).toBe(true);
    await job.runNow();
    await Bun.sleep(30);
    expect(runs).toBe(1);
  });
});
