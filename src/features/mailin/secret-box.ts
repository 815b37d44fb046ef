/**
 * AES-256-GCM for the few secrets the server must be able to read back (IMAP passwords).
 * The ciphertext is bound to its owner (`context`, e.g. the organisation id) as associated
 * data, so a value copied to another organisation's row does not decrypt.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";

export class SecretKeyError extends Error {}

/** 32 bytes, given as 64 hex characters or base64 (standard or url-safe). */
export function parseSecretKey(text: string): Uint8Array {
  const value = text.trim();
  let bytes: Uint8Array | null = null;
  if (/^[0-9a-fA-F]{64}$/.test(value)) bytes = Buffer.from(value, "hex");
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) bytes = Buffer.from(value.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (!bytes || bytes.length !== 32) throw new SecretKeyError("must be 32 bytes, written as 64 hex characters or 44 base64 characters (e.g. `openssl rand -base64 32`)");
  return new Uint8Array(bytes);
}

export function generateSecretKey(): Uint8Array {
  return new Uint8Array(randomBytes(32));
}

export function encryptSecret(key: Uint8Array, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString("base64url"), tag.toString("base64url"), ciphertext.toString("base64url")].join(".");
}

/** Throws SecretKeyError when the value was written under another key (or altered). */
export function decryptSecret(key: Uint8Array, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) throw new SecretKeyError("The stored secret is not in a format this server understands.");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(context, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new SecretKeyError("The stored password cannot be decrypted with this server's key (was the key changed?). Enter the password again.");
  }
}
