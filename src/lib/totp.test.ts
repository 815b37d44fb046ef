import { describe, expect, test } from "bun:test";
import { base32Decode, base32Encode, hotp, newTotpSecret, otpauthUrl, totp, verifyTotp } from "./totp";

const ascii = (s: string) => new TextEncoder().encode(s);
// RFC 6238 Appendix B: the seeds for SHA-1, SHA-256 and SHA-512, 8 digits
const SEED = { "SHA-1": ascii("12345678901234567890"), "SHA-256": ascii("12345678901234567890123456789012"), "SHA-512": ascii("1234567890123456789012345678901234567890123456789012345678901234") } as const;
const VECTORS: [number, string, keyof typeof SEED][] = [
  [59, "94287082", "SHA-1"], [59, "46119246", "SHA-256"], [59, "90693936", "SHA-512"],
  [1111111109, "07081804", "SHA-1"], [1111111109, "68084774", "SHA-256"], [1111111109, "25091201", "SHA-512"],
  [1111111111, "14050471", "SHA-1"], [1111111111, "67062674", "SHA-256"], [1111111111, "99943326", "SHA-512"],
  [1234567890, "89005924", "SHA-1"], [1234567890, "91819424", "SHA-256"], [1234567890, "93441116", "SHA-512"],
  [2000000000, "69279037", "SHA-1"], [2000000000, "90698825", "SHA-256"], [2000000000, "38618901", "SHA-512"],
  [20000000000, "65353130", "SHA-1"], [20000000000, "77737706", "SHA-256"], [20000000000, "47863826", "SHA-512"],
];

describe("RFC 6238 test vectors", () => {
  for (const [seconds, code, algorithm] of VECTORS) {
    test(`${algorithm} at T=${seconds} → ${code}`, async () => {
      expect(await totp(SEED[algorithm], new Date(seconds * 1000), { algorithm, digits: 8 })).toBe(code);
    });
  }
});

test("RFC 4226 Appendix D: HOTP values for counters 0–9", async () => {
  const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
  for (let i = 0; i < 10; i++) expect(await hotp(SEED["SHA-1"], i)).toBe(expected[i]!);
});

test("base32 round-trips and reads what apps show (lower case, spaces)", () => {
  expect(base32Encode(ascii("12345678901234567890"))).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  expect(base32Decode("gezd gnbv gy3t qojq gezd gnbv gy3t qojq")).toEqual(ascii("12345678901234567890"));
  expect(base32Decode("not base32!")).toBeNull();
  const secret = newTotpSecret();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(base32Encode(base32Decode(secret)!)).toBe(secret);
});

describe("verifyTotp", () => {
  const secret = SEED["SHA-1"];
  const at = new Date(1111111111 * 1000);
  test("accepts the current step and one either side, not two away", async () => {
    const step = Math.floor(1111111111 / 30);
    for (const offset of [-1, 0, 1]) expect(await verifyTotp(secret, await hotp(secret, step + offset), at)).toBe(step + offset);
    for (const offset of [-2, 2]) expect(await verifyTotp(secret, await hotp(secret, step + offset), at)).toBeNull();
  });
  test("refuses a code for a step already used, and anything that is not six digits", async () => {
    const code = await totp(secret, at);
    const step = (await verifyTotp(secret, code, at))!;
    expect(await verifyTotp(secret, code, at, { usedStep: step })).toBeNull();
    for (const bad of ["", "12345", "1234567", "abcdef", ` ${code}`]) expect(await verifyTotp(secret, bad, at)).toBeNull();
  });
});

test("otpauth URL carries issuer, account and the secret", () => {
  const url = new URL(otpauthUrl({ issuer: "dmarcwarden", account: "ann@example.test", secret: "ABC" }));
  expect(url.protocol).toBe("otpauth:");
  expect(url.host).toBe("totp");
  expect(decodeURIComponent(url.pathname)).toBe("/dmarcwarden:ann@example.test");
  expect(url.searchParams.get("secret")).toBe("ABC");
  expect(url.searchParams.get("issuer")).toBe("dmarcwarden");
});
