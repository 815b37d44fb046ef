/**
 * A job that runs every `everyMs` (the schedulers: DNS checks, mailbox polls, alert delivery,
 * report watch, digests, hostname re-checks, the metrics' lag probe). Runs never overlap: a
 * run asked for while one is running is dropped (or, with `repeatIfAsked`, run once more right
 * after it). A run's error goes to `onError` and never stops the job. The timers are unref'd:
 * the job alone keeps no process alive. `stop()` ends the timers and waits for a running run.
 */
export interface PeriodicOptions {
  /** time between runs */
  everyMs: number;
  /** the first run: "now" (at start, before this returns) or after this many ms; default: after the first `everyMs` */
  firstAfterMs?: number | "now";
  /** one run; `job.stopped` turns true once stop() was called (a long run may end early) */
  run: (job: { readonly stopped: boolean }) => unknown;
  /** what a failed run threw (log it) */
  onError?: (error: unknown) => void;
  /** a run asked for while one is running happens once more after it instead of being dropped */
  repeatIfAsked?: boolean;
}

export interface Periodic {
  /** starts a run now unless one is running; resolves when the running run has ended (never rejects) */
  runNow(): Promise<void>;
  /** no further runs; resolves once the running run has ended */
  stop(): Promise<void>;
}

export function periodic(options: PeriodicOptions): Periodic {
  const { everyMs, firstAfterMs, run, onError, repeatIfAsked = false } = options;
  let running: Promise<void> | null = null;
  let asked = false;
  let stopped = false;
  const job = {
    get stopped() {
      return stopped;
    },
  };
  const once = async () => {
    do {
      asked = false;
      await run(job);
    } while (repeatIfAsked && asked && !stopped);
  };
  const runNow = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      asked = true;
      return running;
    }
    running = once()
      .catch((error: unknown) => onError?.(error))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const tick = () => void runNow();
  const timer = setInterval(tick, everyMs);
  timer.unref?.();
  let first: ReturnType<typeof setTimeout> | null = null;
  if (firstAfterMs === "now") tick();
  else if (firstAfterMs !== undefined) {
    first = setTimeout(tick, firstAfterMs);
    first.unref?.();
  }
  return {
    runNow,
    async stop() {
      stopped = true;
      if (first) clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
