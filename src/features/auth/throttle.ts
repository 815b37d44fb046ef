import type { AppDeps } from "../../deps";
import { RateLimitedError } from "../../http/errors";

/**
 * Password-guessing brake shared by the user and the admin login: failures are counted per
 * client address and per account name in a 15-minute window. After a few failures for one
 * account each further attempt is slowed; past the limit every attempt is refused with 429
 * until the window ends. A successful login clears the account's count.
 */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const FAILURES_PER_ACCOUNT = 5;
export const FAILURES_PER_ADDRESS = 20;
const SLOW_AFTER = 2;
const STEP_MS = 250;
const MAX_DELAY_MS = 1500;

export interface LoginKeys {
  /** e.g. "login" or "admin-login" */
  scope: string;
  address: string;
  account: string;
}

const message = (seconds: number) => `Too many failed sign-in attempts. Please wait ${Math.ceil(seconds / 60)} minutes and try again.`;

/** Throws 429 when either key is past its limit; otherwise waits a little after repeated failures. */
export async function checkLoginThrottle(deps: Pick<AppDeps, "limiter">, keys: LoginKeys): Promise<void> {
  const byAddress = deps.limiter.count(`${keys.scope}:address`, keys.address);
  const byAccount = deps.limiter.count(`${keys.scope}:account`, keys.account);
  if (byAddress >= FAILURES_PER_ADDRESS || byAccount >= FAILURES_PER_ACCOUNT) {
    throw new RateLimitedError(LOGIN_WINDOW_SECONDS, message(LOGIN_WINDOW_SECONDS));
  }
  if (byAccount > SLOW_AFTER) await Bun.sleep(Math.min(MAX_DELAY_MS, (byAccount - SLOW_AFTER) * STEP_MS));
}

export function recordLoginFailure(deps: Pick<AppDeps, "limiter">, keys: LoginKeys): void {
  // counted without refusing here: the next attempt is refused by checkLoginThrottle
  for (const [bucket, key, limit] of [
    [`${keys.scope}:address`, keys.address, FAILURES_PER_ADDRESS],
    [`${keys.scope}:account`, keys.account, FAILURES_PER_ACCOUNT],
  ] as const) {
    try {
      deps.limiter.hit(bucket, key, limit, LOGIN_WINDOW_SECONDS);
    } catch {}
  }
}

export function clearLoginFailures(deps: Pick<AppDeps, "limiter">, keys: LoginKeys): void {
  deps.limiter.reset(`${keys.scope}:account`, keys.account);
}

/** A valid argon2id hash of a random password: verified against when the account does not exist. */
let dummyHash: Promise<string> | null = null;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= Bun.password.hash(crypto.randomUUID(), { algorithm: "argon2id" });
  return dummyHash;
}

/** Verifies a password in about the same time whether or not the account (or its hash) exists. */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    await Bun.password.verify(password, await dummyPasswordHash()).catch(() => false);
    return false;
  }
  return Bun.password.verify(password, hash).catch(() => false);
}
