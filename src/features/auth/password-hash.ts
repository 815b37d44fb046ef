/**
 * Password hashes (argon2id with Bun's defaults: 64 MB of memory and two passes each), made and
 * verified a bounded number at a time. Bun computes them on its thread pool, as many at once as
 * the machine has cores: without a bound a burst of sign-ins or sign-ups would hold 64 MB per
 * core at the same moment (2 GB on a 32-core machine). The others wait their turn, in order.
 */
import { Slots } from "../../lib/slots";

/** argon2id computations at once, whatever the number of cores */
export const PASSWORD_HASHES_AT_ONCE = 2;

/** the bound's slots (tests read how many are under way and waiting) */
export const passwordHashing = new Slots(PASSWORD_HASHES_AT_ONCE);

/** An argon2id hash of `password` (PHC string). */
export function hashPassword(password: string): Promise<string> {
  return passwordHashing.run(() => Bun.password.hash(password, { algorithm: "argon2id" }));
}

/** A valid argon2id hash of a random password: verified against when the account does not exist. */
let dummyHash: Promise<string> | null = null;
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(crypto.randomUUID());
  return dummyHash;
}

/** Verifies a password in about the same time whether or not the account (or its hash) exists. */
export async function verifyPassword(password: string, hash: string | null | undefined): Promise<boolean> {
  if (!hash) {
    const dummy = await dummyPasswordHash();
    await passwordHashing.run(() => Bun.password.verify(password, dummy)).catch(() => false);
    return false;
  }
  return passwordHashing.run(() => Bun.password.verify(password, hash)).catch(() => false);
}
