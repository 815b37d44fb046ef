import type { StoreCore } from "../db/store";
import { attemptsInWindow, clearAttempts, countAttempt } from "../features/auth/attempts";
import { sweepStaleAttempts } from "../features/auth/throttle";
import { RateLimitedError } from "./errors";

/**
 * Fixed-window request limits per key, counted in the database (the attempt counters of
 * features/auth/attempts.ts), so a limit holds across every app node and adding nodes never
 * multiplies it. Each bucket names its own limit, e.g. contact: 5 per 10 minutes per client
 * address.
 */
export class RateLimiter {
  constructor(
    private readonly store: StoreCore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Counts a hit and throws RateLimitedError once the key is past its limit. */
  async hit(bucket: string, key: string, limit: number, windowSeconds: number, message?: string): Promise<void> {
    const { count, retryAfter } = await countAttempt(this.store, bucketOf(bucket), key, windowSeconds, this.now());
    await sweepStaleAttempts({ store: this.store, now: this.now });
    if (count > limit) throw new RateLimitedError(retryAfter, message);
  }

  /** How many hits a key has in its current window (for slowing down before refusing). */
  count(bucket: string, key: string, windowSeconds: number): Promise<number> {
    return attemptsInWindow(this.store, bucketOf(bucket), key, windowSeconds, this.now());
  }

  reset(bucket: string, key: string): Promise<void> {
    return clearAttempts(this.store, bucketOf(bucket), key);
  }
}

/** Rate-limit buckets share the counters table with the sign-in throttle: kept apart by a prefix. */
const bucketOf = (bucket: string) => `rate:${bucket}`;
