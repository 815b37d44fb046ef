/**
 * A bound on tasks under way at once: a task starts when one of the `size` slots is free, else
 * waits behind the others (first come, first served). A task that fails frees its slot too.
 * With `maxWaiting`, a task that finds that many already waiting is not run at all
 * (`runOrSkip` answers `skipped`).
 */
export class Slots {
  private used = 0;
  private readonly queue: (() => void)[] = [];

  constructor(
    readonly size: number,
    readonly maxWaiting = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError("Slots: size must be a whole number of 1 or more");
  }

  /** tasks under way */
  get inFlight(): number {
    return this.used;
  }

  /** tasks waiting for a slot */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `task` in its turn, however many wait. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.used >= this.size) await new Promise<void>((resolve) => this.queue.push(resolve));
    else this.used++;
    return this.runHolding(task);
  }

  /** Runs `task` in its turn, or answers `skipped` at once when `maxWaiting` tasks already wait. */
  async runOrSkip<T>(task: () => Promise<T>, skipped: T): Promise<T> {
    if (this.used >= this.size) {
      if (this.queue.length >= this.maxWaiting) return skipped;
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else this.used++;
    return this.runHolding(task);
  }

  private async runHolding<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } finally {
      // the slot passes straight to the next in line, or is freed
      const next = this.queue.shift();
      if (next) next();
      else this.used--;
    }
  }
}
