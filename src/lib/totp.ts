/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) with WebCrypto: HMAC-SHA1 by
 * default, 30-second steps, 6 digits — what every authenticator app reads from an otpauth:// URL.
 * Pure apart from crypto.subtle; tested against the RFC's vectors.
 */
export type TotpAlgorithm = "SHA-1" | "SHA-256" | "SHA-512";
export interface TotpOptions {
  algorithm?: TotpAlgorithm;
  digits?: number;
  periodSeconds?: number;
}

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** Reads base32 as apps show it (any case, spaces and padding ignored); null for other characters. */
export function base32Decode(text: string): Uint8Array | null {
  const clean = text.toUpperCase().replace(/[\s=-]/g, "");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) return null;
    value = ((value << 5) | index) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return new Uint8Array(out);
}

/** A new random secret: 20 bytes (160 bits, RFC 4226's recommendation), as base32. */
export function newTotpSecret(): string {
  return base32Encode(crypto.getRandomValues(new Uint8Array(20)));
}

/** HOTP (RFC 4226): the code for one counter value. */
export async function hotp(secret: Uint8Array, counter: number, options: TotpOptions = {}): Promise<string> {
  const { algorithm = "SHA-1", digits = 6 } = options;
  const message = new Uint8Array(8);
  new DataView(message.buffer).setBigUint64(0, BigInt(counter));
  const key = await crypto.subtle.importKey("raw", new Uint8Array(secret), { name: "HMAC", hash: algorithm }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, "0");
}

/** The 30-second step a moment falls in. */
export function totpStep(at: Date, periodSeconds = 30): number {
  return Math.floor(at.getTime() / 1000 / periodSeconds);
}

/** TOTP (RFC 6238): the code at a moment. */
export function totp(secret: Uint8Array, at: Date, options: TotpOptions = {}): Promise<string> {
  return hotp(secret, totpStep(at, options.periodSeconds), options);
}

/**
 * Checks a code against the current step and one step either side (clock drift, RFC 6238 §5.2).
 * Returns the step it matched, so the caller can refuse that step (or an earlier one) next time;
 * null when it matches none after `notAfterStep`.
 */
export async function verifyTotp(secret: Uint8Array, code: string, at: Date, options: TotpOptions & { usedStep?: number | null } = {}): Promise<number | null> {
  const digits = options.digits ?? 6;
  if (!new RegExp(`^\\d{${digits}}$`).test(code)) return null;
  const now = totpStep(at, options.periodSeconds);
  let matched: number | null = null;
  // every candidate is computed (no early return), so the answer takes the same time either way
  for (const step of [now - 1, now, now + 1]) {
    const expected = await hotp(secret, step, options);
    if (timingSafeEqual(expected, code) && (options.usedStep == null || step > options.usedStep)) matched ??= step;
  }
  return matched;
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The otpauth:// URL an authenticator app scans (Google's Key Uri Format). */
export function otpauthUrl(input: { issuer: string; account: string; secret: string }): string {
  const label = `${encodeURIComponent(input.issuer)}:${encodeURIComponent(input.account)}`;
  const query = new URLSearchParams({ secret: input.secret, issuer: input.issuer, algorithm: "SHA1", digits: "6", period: "30" });
  return `otpauth://totp/${label}?${query}`;
}
