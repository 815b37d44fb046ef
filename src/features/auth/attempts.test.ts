/**
 * The attempt counters behind sign-in throttling and the request rate limits, on both stores:
 * parallel attempts each get their own count, a window ends on the clock, a paced bucket
 * refuses inside its pause, and two app nodes (two stores on one database) share one count.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgresStore, openStore, type Store } from "../../db";
import { RateLimitedError } from "../../http/errors";
import { RateLimiter } from "../../http/rate-limit";
import { postgresMissing, startPostgres, type PostgresCluster } from "../../../tests/support/postgres";
import { countAttempt, paceAttempt } from "./attempts";

const T0 = new Date("2025-05-01T12:00:00Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let cluster: PostgresCluster | null = null;
let dir = "";
const open: Store[] = [];
if (postgresMissing) console.warn(`skipping the PostgreSQL counter tests: ${postgresMissing}`);

beforeAll(async () => {
  if (!postgresMissing) cluster = await startPostgres();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

/** Two stores on one fresh database: two app nodes' connections. */
const stores: Record<string, () => Promise<[Store, Store]>> = {
  sqlite: async () => {
    dir = mkdtempSync(join(tmpdir(), "dw-attempts-"));
    const pair: [Store, Store] = [openStore(join(dir, "dw.db")), openStore(join(dir, "dw.db"))];
    open.push(...pair);
    return pair;
  },
  postgres: async () => {
    const url = await cluster!.createDatabase();
    const first = await openPostgresStore(url);
    const second = await openPostgresStore(url, { migrate: false });
    open.push(first, second);
    return [first, second];
  },
};

for (const [dialect, openPair] of Object.entries(stores)) {
  describe.skipIf(dialect === "postgres" && postgresMissing !== null)(`attempt counters on ${dialect}`, () => {
    test("parallel attempts each get their own count; a new window starts at 1", async () => {
      const [store] = await openPair();
      const counts = await Promise.all(Array.from({ length: 12 }, () => countAttempt(store, "test", "k", 60, T0)));
      expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(counts.every((c) => c.retryAfter === 60)).toBe(true);
      expect((await countAttempt(store, "test", "k", 60, at(30))).retryAfter).toBe(30);
      expect((await countAttempt(store, "test", "k", 60, at(60))).count).toBe(1);
    });

    test("a paced bucket lets the free attempts through, then refuses inside a doubling pause", async () => {
      const [store] = await openPair();
      const pace = { windowSeconds: 900, free: 2, firstPauseSeconds: 1, maxPauseSeconds: 4 };
      expect(await paceAttempt(store, "pace", "acct", pace, T0)).toEqual({ allowed: true });
      expect(await paceAttempt(store, "pace", "acct", pace, T0)).toEqual({ allowed: true });
      // the third attempt passes and sets a 1 s pause, the fourth a 2 s one, then 4 s (capped)
      expect(await paceAttempt(store, "pace", "acct", pace, T0)).toEqual({ allowed: true });
      expect(await paceAttempt(store, "pace", "acct", pace, T0)).toEqual({ allowed: false, retryAfter: 1 });
      expect(await paceAttempt(store, "pace", "acct", pace, at(1))).toEqual({ allowed: true });
      expect(await paceAttempt(store, "pace", "acct", pace, at(2))).toEqual({ allowed: false, retryAfter: 1 });
      expect(await paceAttempt(store, "pace", "acct", pace, at(3))).toEqual({ allowed: true });
      expect(await paceAttempt(store, "pace", "acct", pace, at(6))).toEqual({ allowed: false, retryAfter: 1 });
      expect(await paceAttempt(store, "pace", "acct", pace, at(7))).toEqual({ allowed: true });
      expect(await paceAttempt(store, "pace", "acct", pace, at(10))).toEqual({ allowed: false, retryAfter: 1 });
    });

    test("two nodes' rate limiters on one database share the limit; reset clears it for both", async () => {
      const [nodeA, nodeB] = await openPair();
      const limiterA = new RateLimiter(nodeA, () => T0);
      const limiterB = new RateLimiter(nodeB, () => T0);
      for (let i = 0; i < 4; i++) await (i % 2 ? limiterB : limiterA).hit("contact", "198.51.100.1", 4, 600);
      const refused = await limiterB.hit("contact", "198.51.100.1", 4, 600).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect(await limiterA.count("contact", "198.51.100.1", 600)).toBe(5);
      await limiterA.hit("contact", "198.51.100.2", 4, 600);
      await limiterA.reset("contact", "198.51.100.1");
      expect(await limiterB.count("contact", "198.51.100.1", 600)).toBe(0);
      await limiterB.hit("contact", "198.51.100.1", 4, 600);
    });
  });
}
