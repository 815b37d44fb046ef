/**
 * DKIM key records (RFC 6376 §3.6.1, RFC 8301, RFC 8463). No DNS query lists a domain's
 * selectors, so the caller tries the user's, those seen in reports and a list of common ones.
 */
import { createPublicKey } from "node:crypto";
import { finding, type Finding, isTemporaryFailure, parseTagList, type TxtLookup } from "./types";

export { COMMON_DKIM_SELECTORS, MAX_REQUEST_SELECTORS, SELECTOR_PATTERN } from "./selectors";
export const MIN_RSA_BITS = 1024;
export const RECOMMENDED_RSA_BITS = 2048;

export type DkimStatus = "valid" | "weak key" | "missing" | "invalid";
export type DkimKeyStatus = "valid" | "weak key" | "revoked" | "invalid";

export interface DkimKey {
  selector: string;
  record: string;
  status: DkimKeyStatus;
  keyType?: "rsa" | "ed25519" | string;
  /** RSA modulus length, or 256 for ed25519 */
  bits?: number;
  testing: boolean;
  hashAlgorithms?: string[];
  findings: Finding[];
}

/** The RSA modulus length of a DKIM p= value (SubjectPublicKeyInfo, or a bare RSAPublicKey), or null. */
export function rsaModulusBits(base64: string): number | null {
  const der = Buffer.from(base64, "base64");
  if (!der.length) return null;
  for (const type of ["spki", "pkcs1"] as const) {
    try {
      const key = createPublicKey({ key: der, format: "der", type });
      if (key.asymmetricKeyType === "rsa") return key.asymmetricKeyDetails?.modulusLength ?? null;
      return null;
    } catch {}
  }
  return null;
}

/** Parses and judges one selector's key record. */
export function parseDkimKey(selector: string, record: string): DkimKey {
  const findings: Finding[] = [];
  const name = `${selector}._domainkey`;
  const list = parseTagList(record);
  const tags = list.byName;
  const key: DkimKey = { selector, record, status: "valid", testing: false, findings };
  const invalid = (code: string, message: string, fix: string) => {
    findings.push(finding("error", `dkim.${code}`, message, fix));
    key.status = "invalid";
  };
  for (const part of list.malformed) invalid("syntax", `"${part}" in the key at ${name} is not a tag=value pair.`, "Copy the DKIM record again from your email provider.");
  for (const dup of list.duplicates) invalid("duplicate_tag", `The tag "${dup}=" appears twice in the key at ${name}, which makes it invalid.`, `Keep one "${dup}=".`);
  const v = tags.get("v");
  if (v !== undefined && (v !== "DKIM1" || list.tags[0]?.name !== "v")) {
    invalid("version", `The key at ${name} has "v=${v}"${v === "DKIM1" ? " but not as its first tag" : ""}; it must be "v=DKIM1" first, or left out.`, 'Start the record with "v=DKIM1;".');
  }
  const k = (tags.get("k") ?? "rsa").toLowerCase();
  key.keyType = k;
  const hashes = tags.get("h")?.split(":").map((h) => h.trim().toLowerCase()).filter(Boolean);
  if (hashes) {
    key.hashAlgorithms = hashes;
    if (hashes.length && hashes.every((h) => h === "sha1")) {
      findings.push(finding("warning", "dkim.sha1_only", `The key at ${name} allows only SHA-1 signatures, which receivers no longer trust.`, "Remove h=sha1 (or set h=sha256) and sign with rsa-sha256."));
    }
  }
  const flags = tags.get("t")?.split(":").map((f) => f.trim().toLowerCase()) ?? [];
  if (flags.includes("y")) {
    key.testing = true;
    findings.push(finding("warning", "dkim.testing", `The key at ${name} is in testing mode (t=y): receivers may treat signatures made with it as unsigned.`, 'Remove "t=y" once signing works.'));
  }
  const s = tags.get("s");
  if (s !== undefined && !s.split(":").some((x) => ["*", "email"].includes(x.trim().toLowerCase()))) {
    invalid("service", `The key at ${name} is limited to service "${s}", so it cannot be used for email.`, "Remove s= or set s=email.");
  }
  const p = tags.get("p");
  if (p === undefined) {
    invalid("missing_p", `The record at ${name} has no public key (p=).`, "Copy the full DKIM record again from your email provider; it must contain p= followed by the key.");
    return key;
  }
  const b64 = p.replace(/\s+/g, "");
  if (b64 === "") {
    key.status = "revoked";
    findings.push(finding("warning", "dkim.revoked", `The key at ${name} has been revoked (p= is empty): mail signed with the ${selector} selector fails DKIM.`, `If you still sign mail with "${selector}", publish its current public key; otherwise this is expected after a key rotation.`));
    return key;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) {
    invalid("bad_base64", `The public key at ${name} contains characters that are not base64, so it cannot be read.`, "Copy the key again without quotes, line breaks or stray characters.");
    return key;
  }
  if (k === "ed25519") {
    const raw = Buffer.from(b64, "base64");
    if (raw.length !== 32) invalid("bad_ed25519", `The ed25519 key at ${name} is ${raw.length} bytes long; an ed25519 key is 32 bytes.`, "Publish the 32-byte public key in base64 (RFC 8463).");
    else key.bits = 256;
    return key;
  }
  if (k !== "rsa") {
    invalid("key_type", `The key at ${name} has type k=${k}; receivers only understand rsa and ed25519.`, "Use an RSA (2048-bit) or ed25519 key.");
    return key;
  }
  const bits = rsaModulusBits(b64);
  if (bits === null) {
    invalid("bad_key", `The public key at ${name} is not a valid RSA key, so every signature made with it fails.`, "Copy the public key again from your email provider: it is usually cut short or has extra characters.");
    return key;
  }
  key.bits = bits;
  if (bits < MIN_RSA_BITS) {
    key.status = key.status === "invalid" ? "invalid" : "weak key";
    findings.push(finding("error", "dkim.weak_key", `The key at ${name} is only ${bits} bits; receivers ignore DKIM signatures made with keys under ${MIN_RSA_BITS} bits.`, `Create a new ${RECOMMENDED_RSA_BITS}-bit key with your email provider and publish it (a new selector lets you switch without downtime).`));
  } else if (bits < RECOMMENDED_RSA_BITS) {
    findings.push(finding("info", "dkim.short_key", `The key at ${name} is ${bits} bits; it works, but ${RECOMMENDED_RSA_BITS} bits is recommended.`, `Rotate to a ${RECOMMENDED_RSA_BITS}-bit key the next time you change keys.`));
  }
  return key;
}

export interface DkimResult {
  status: DkimStatus;
  recordValue: string | null;
  keys: DkimKey[];
  selectorsTried: string[];
  findings: Finding[];
}

/**
 * Judges every selector's lookup (in the order tried; an array, since selectors such as
 * "20230601" would reorder an object's keys): the domain's status is the worst active key.
 */
export function evaluateDkim(domain: string, input: [selector: string, lookup: TxtLookup][] | Record<string, TxtLookup>): DkimResult {
  const lookups = Array.isArray(input) ? input : Object.entries(input);
  const selectorsTried = lookups.map(([s]) => s);
  const keys: DkimKey[] = [];
  const findings: Finding[] = [];
  for (const [selector, lookup] of lookups) {
    if (lookup.status !== "ok") continue;
    const candidates = lookup.records.map((r) => r.text).filter((t) => /(^|;)\s*(v\s*=\s*DKIM1|p\s*=|k\s*=)/i.test(t));
    if (!candidates.length) continue;
    if (candidates.length > 1) {
      const key: DkimKey = { selector, record: candidates.join(" | "), status: "invalid", testing: false, findings: [finding("error", "dkim.multiple_records", `There are ${candidates.length} DKIM records at ${selector}._domainkey.${domain}; receivers cannot tell which one to use.`, "Delete all but the current one.")] };
      keys.push(key);
      continue;
    }
    keys.push(parseDkimKey(selector, candidates[0]!));
  }
  for (const k of keys) findings.push(...k.findings);
  const failed = lookups.filter(([, l]) => isTemporaryFailure(l.status));
  if (!keys.length) {
    return {
      status: "missing",
      recordValue: null,
      keys,
      selectorsTried,
      findings: [
        ...(failed.length ? [finding("warning", "dkim.lookup_failed", `${failed.length} selector lookups failed; a key may exist that could not be checked.`, "Try again in a few minutes.")] : []),
        finding("error", "dkim.missing", `No DKIM key found for ${domain} under the ${selectorsTried.length} selectors tried. DKIM keys live at <selector>._domainkey.${domain}, and the selector cannot be guessed in every case.`, "Turn on DKIM signing in your email provider's admin console and publish the record it gives you; if you already have, enter your selector (shown as s= in a message's DKIM-Signature header) and check again."),
      ],
    };
  }
  const active = keys.filter((k) => k.status !== "revoked");
  const primary = active.find((k) => k.status === "valid") ?? active[0] ?? keys[0]!;
  let status: DkimStatus;
  if (!active.length) status = "invalid";
  else if (active.some((k) => k.status === "invalid")) status = "invalid";
  else if (active.some((k) => k.status === "weak key")) status = "weak key";
  else status = "valid";
  if (!active.length) findings.unshift(finding("error", "dkim.all_revoked", `Every DKIM key found for ${domain} has been revoked, so no mail from it can pass DKIM.`, "Publish the current public key from your email provider."));
  return { status, recordValue: primary.record, keys, selectorsTried, findings };
}
