import { RateLimitedError } from "./errors";

/**
 * A fixed-window counter per key, in memory (one process holds everything). Each bucket
 * names its own limit, e.g. contact: 5 per 10 minutes per client address.
 */
export class RateLimiter {
  private readonly hits = new Map<string, { count: number; resetAt: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  /** Counts a hit and throws RateLimitedError once the key is past its limit. */
  hit(bucket: string, key: string, limit: number, windowSeconds: number, message?: string): void {
    const id = `${bucket}\u0000${key}`;
    const now = this.now();
    let entry = this.hits.get(id);
    if (!entry || entry.resetAt <= now) {
      entry = { count: 0, resetAt: now + windowSeconds * 1000 };
      this.hits.set(id, entry);
      if (this.hits.size > 50_000) this.sweep(now);
    }
    entry.count++;
    if (entry.count > limit) {
      const retry = Math.max(1, Math.ceil((entry.resetAt - now) / 1000));
      throw new RateLimitedError(retry, message);
    }
  }

  /** How many hits a key has in its current window (for slowing down before refusing). */
  count(bucket: string, key: string): number {
    const entry = this.hits.get(`${bucket}\u0000${key}`);
    return entry && entry.resetAt > this.now() ? entry.count : 0;
  }

  reset(bucket: string, key: string): void {
    this.hits.delete(`${bucket}\u0000${key}`);
  }

  private sweep(now: number) {
    for (const [k, v] of this.hits) if (v.resetAt <= now) this.hits.delete(k);
  }
}
