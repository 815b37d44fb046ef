import type { StoreCore } from "../../db/store";
import { RateLimitedError } from "../../http/errors";
import { clearAttempts, countAttempt, hasMark, paceAttempt, refundAttempt, setMark, sweepAttempts, type Pace } from "./attempts";

/**
 * Password-guessing brake shared by the user and the admin login (and, with its own limits,
 * by "Forgot password?"). Every attempt is counted in the database before the password is
 * checked, so a burst of parallel guesses is refused past the limit without being verified.
 *
 * - one account from one address: ATTEMPTS_PER_PAIR per window, then 429 for that pair only;
 *   a successful sign-in clears the pair.
 * - one address across accounts: ATTEMPTS_PER_ADDRESS per window (successes are given back).
 * - one account across addresses: after ACCOUNT_PACE.free attempts in a window each further
 *   attempt must wait a pause that doubles (1 s, 2 s, 4 s … up to a minute); inside the pause
 *   the answer is 429 with Retry-After. Addresses the account signed in from in the last
 *   KNOWN_ADDRESS_DAYS skip this pause, so a stranger's guesses from elsewhere never keep
 *   the owner out of their usual address.
 * - at NOTIFY_AFTER_FAILURES failures of one account in a window its owner is told by mail
 *   (when mail is on), at most once per NOTIFY_EVERY_SECONDS.
 */
export const LOGIN_WINDOW_SECONDS = 15 * 60;
export const ATTEMPTS_PER_PAIR = 5;
export const ATTEMPTS_PER_ADDRESS = 20;
export const ACCOUNT_PACE: Pace = { windowSeconds: LOGIN_WINDOW_SECONDS, free: 5, firstPauseSeconds: 1, maxPauseSeconds: 60 };
export const KNOWN_ADDRESS_DAYS = 90;
const KNOWN_ADDRESS_SECONDS = KNOWN_ADDRESS_DAYS * 86400;
export const NOTIFY_AFTER_FAILURES = 5;
export const NOTIFY_EVERY_SECONDS = 3600;
/** Kept for the tests and docs that speak of "failures per account". */
export const FAILURES_PER_ACCOUNT = ATTEMPTS_PER_PAIR;
export const FAILURES_PER_ADDRESS = ATTEMPTS_PER_ADDRESS;

/** Forgot-password: per email from one address, per address, and per email from addresses it never signed in from (all per hour). */
export const PASSWORD_LINK_WINDOW_SECONDS = 3600;
export const PASSWORD_LINKS_PER_PAIR = 3;
export const PASSWORD_LINKS_PER_ADDRESS = 10;
export const PASSWORD_LINKS_PER_EMAIL = 5;

export interface LoginKeys {
  /** "login" or "admin-login" */
  scope: string;
  address: string;
  /** the lower-cased email or admin user name */
  account: string;
}

type ThrottleDeps = { store: StoreCore; now: () => Date };

// a space: neither an email address nor a client address contains one (PostgreSQL text cannot hold NUL)
const pairKey = (account: string, address: string) => `${account} ${address}`;

const waitFor = (seconds: number) => (seconds < 60 ? `${seconds} second${seconds === 1 ? "" : "s"}` : `${Math.ceil(seconds / 60)} minutes`);
const tooManyLogins = (seconds: number) => new RateLimitedError(seconds, `Too many failed sign-in attempts. Please wait ${waitFor(seconds)} and try again.`);

/** Counts the attempt and throws 429 when it is over a limit. Call it before checking the password. */
export async function admitLoginAttempt(deps: ThrottleDeps, keys: LoginKeys): Promise<void> {
  const { store } = deps;
  const now = deps.now();
  const pair = pairKey(keys.account, keys.address);
  const byAddress = await countAttempt(store, `${keys.scope}:address`, keys.address, LOGIN_WINDOW_SECONDS, now);
  if (byAddress.count > ATTEMPTS_PER_ADDRESS) throw tooManyLogins(byAddress.retryAfter);
  const byPair = await countAttempt(store, `${keys.scope}:pair`, pair, LOGIN_WINDOW_SECONDS, now);
  if (byPair.count > ATTEMPTS_PER_PAIR) throw tooManyLogins(byPair.retryAfter);
  if (await hasMark(store, `${keys.scope}:known`, pair, KNOWN_ADDRESS_SECONDS, now)) return;
  const byAccount = await paceAttempt(store, `${keys.scope}:account`, keys.account, ACCOUNT_PACE, now);
  if (!byAccount.allowed) throw tooManyLogins(byAccount.retryAfter);
}

/** Counts a failed sign-in; true when the account's owner should now be told (once an hour at most). */
export async function recordLoginFailure(deps: ThrottleDeps, keys: LoginKeys): Promise<boolean> {
  const now = deps.now();
  const failures = await countAttempt(deps.store, `${keys.scope}:failures`, keys.account, LOGIN_WINDOW_SECONDS, now);
  if (failures.count < NOTIFY_AFTER_FAILURES) return false;
  return (await countAttempt(deps.store, `${keys.scope}:notified`, keys.account, NOTIFY_EVERY_SECONDS, now)).count === 1;
}

/** A good sign-in: clears the pair, gives the address its attempt back and remembers the address for the account. */
export async function recordLoginSuccess(deps: ThrottleDeps, keys: LoginKeys): Promise<void> {
  await clearAttempts(deps.store, `${keys.scope}:pair`, pairKey(keys.account, keys.address));
  await refundAttempt(deps.store, `${keys.scope}:address`, keys.address);
  await rememberAddress(deps, keys);
}

/** Marks the address as one the account's owner uses (sign-in, sign-up, a used password link). */
export async function rememberAddress(deps: ThrottleDeps, keys: LoginKeys): Promise<void> {
  await setMark(deps.store, `${keys.scope}:known`, pairKey(keys.account, keys.address), deps.now());
  await sweepStaleAttempts(deps);
}

let lastSweep = 0;
/** At most once an hour per process: forgets ended counters (the rate limits' too) and old marks. */
export async function sweepStaleAttempts(deps: ThrottleDeps): Promise<void> {
  const now = deps.now();
  if (Math.abs(now.getTime() - lastSweep) < 3600_000) return;
  lastSweep = now.getTime();
  await sweepAttempts(deps.store, ["login:known", "admin-login:known"], KNOWN_ADDRESS_SECONDS, now);
}

/**
 * "Forgot password?": counted per address, per (email, address) pair, and per email only from
 * addresses the account never signed in from, so nobody can use up a victim's resets for them.
 */
export async function admitPasswordLinkRequest(deps: ThrottleDeps, address: string, email: string): Promise<void> {
  const { store } = deps;
  const now = deps.now();
  const byAddress = await countAttempt(store, "password-link:address", address, PASSWORD_LINK_WINDOW_SECONDS, now);
  if (byAddress.count > PASSWORD_LINKS_PER_ADDRESS) {
    throw new RateLimitedError(byAddress.retryAfter, "Too many password links asked for from this address. Please try again in an hour.");
  }
  const tooMany = (seconds: number) =>
    new RateLimitedError(seconds, "Too many password links asked for this email address. Please check your inbox (and spam folder), or try again in an hour.");
  const pair = pairKey(email, address);
  const byPair = await countAttempt(store, "password-link:pair", pair, PASSWORD_LINK_WINDOW_SECONDS, now);
  if (byPair.count > PASSWORD_LINKS_PER_PAIR) throw tooMany(byPair.retryAfter);
  if (await hasMark(store, "login:known", pair, KNOWN_ADDRESS_SECONDS, now)) return;
  const byEmail = await countAttempt(store, "password-link:email", email, PASSWORD_LINK_WINDOW_SECONDS, now);
  if (byEmail.count > PASSWORD_LINKS_PER_EMAIL) throw tooMany(byEmail.retryAfter);
}
