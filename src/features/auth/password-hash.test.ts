import { expect, test } from "bun:test";
import { hashPassword, PASSWORD_HASHES_AT_ONCE, passwordHashing, verifyPassword } from "./password-hash";

test("a burst of hashes and verifications computes at most PASSWORD_HASHES_AT_ONCE at a time, each with its right answer", async () => {
  const hash = await hashPassword("correct horse battery staple");
  expect(hash.startsWith("$argon2id$")).toBe(true);
  const checks = [
    ...Array.from({ length: 3 }, () => verifyPassword("correct horse battery staple", hash)),
    ...Array.from({ length: 2 }, () => verifyPassword("wrong password", hash)),
  ];
  const more = hashPassword("another long password");
  // started together: two compute, the rest wait their turn
  expect(passwordHashing.inFlight).toBe(PASSWORD_HASHES_AT_ONCE);
  expect(passwordHashing.waiting).toBe(6 - PASSWORD_HASHES_AT_ONCE);
  expect(await Promise.all(checks)).toEqual([true, true, true, false, false]);
  expect(await verifyPassword("another long password", await more)).toBe(true);
  expect([passwordHashing.inFlight, passwordHashing.waiting]).toEqual([0, 0]);
});

test("an account without a hash (or none at all) is refused, after a verification all the same", async () => {
  expect(await verifyPassword("anything at all", null)).toBe(false);
  expect(await verifyPassword("anything at all", "not a hash")).toBe(false);
});
