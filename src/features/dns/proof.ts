/**
 * Proof that an organisation controls a DNS name: a TXT record at `_dmarcwarden-verify.<name>`
 * holding a token unique to the organisation and the name. Pointing a name at the deployment
 * proves nothing about who may use it (every tenant's name points here), so custom hostnames and
 * single sign-on's allowed email domains both need this record before they are used.
 *
 * The token is derived (HMAC-SHA256 under the server key) rather than stored: nothing to keep,
 * the same record is shown every time, and no other organisation can compute it. Changing the
 * server key changes every token, so proofs then fail their next check until republished.
 */
import { createHmac } from "node:crypto";
import type { AppDeps } from "../../deps";
import { serverKey } from "../mailin/server-key";
import type { DnsProofRecord } from "./contract";
import type { DnsResolver } from "./resolver";

export type { DnsProofRecord };

export const PROOF_LABEL = "_dmarcwarden-verify";
const PROOF_PREFIX = "dmarcwarden-verify=";

type KeyDeps = Pick<AppDeps, "secretKey" | "config" | "store">;

const normalName = (name: string) => name.trim().toLowerCase().replace(/\.$/, "");

/** The proof record of `name` for the organisation `orgId`. */
export function proofRecord(deps: KeyDeps, orgId: string, name: string): DnsProofRecord {
  const host = normalName(name);
  const token = createHmac("sha256", serverKey(deps)).update(`dns-proof\n${orgId}\n${host}`).digest("base64url");
  return { name: `${PROOF_LABEL}.${host}`, type: "TXT", value: `${PROOF_PREFIX}${token}` };
}

/** One line for messages: `_dmarcwarden-verify.example.com TXT "dmarcwarden-verify=…"`. */
export const proofRecordText = (record: DnsProofRecord) => `${record.name} TXT "${record.value}"`;

/** proved: the record is there; missing: a definite answer without it; unknown: DNS did not answer (try again). */
export type ProofOutcome = { status: "proved" | "missing" | "unknown"; found: string };

/** Asks DNS now (no cached answer) whether the organisation's proof record for `name` is published. */
export async function checkProof(resolver: DnsResolver, record: DnsProofRecord): Promise<ProofOutcome> {
  const answer = await resolver.withPolicy({ refresh: true }).txt(record.name);
  if (answer.status === "ok" || answer.status === "nxdomain" || answer.status === "nodata") {
    const values = answer.records.map((r) => r.text.trim());
    if (values.includes(record.value)) return { status: "proved", found: `${record.name} holds this organization's proof record.` };
    if (!values.length) return { status: "missing", found: `${record.name} has no TXT record.` };
    return { status: "missing", found: `${record.name} has no TXT record with this organization's value.` };
  }
  return { status: "unknown", found: `The DNS lookup of ${record.name} failed (${answer.status}${answer.error ? `: ${answer.error}` : ""}); try again in a moment.` };
}
