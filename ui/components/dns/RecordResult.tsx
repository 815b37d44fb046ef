import type { ReactNode } from "react";
import type { RecordCheck } from "../../../src/features/dns/analyze";
import { StatusBadge } from "../StatusBadge";
import { FindingList } from "./FindingList";
import type { RecordKind } from "./api";

const TITLES: Record<RecordKind, string> = { dmarc: "DMARC", spf: "SPF", dkim: "DKIM" };

/** SPEC §8: valid → Valid; otherwise Invalid, or Not Found for a DKIM key that was not found. */
export function validityLabel(kind: RecordKind, check: Pick<RecordCheck<string, unknown>, "isValid" | "status">): string {
  if (check.isValid) return "Valid";
  // the DNS server did not answer: nothing is known, so neither Invalid nor Not Found
  if (check.status === "unchecked") return "Could not check";
  return kind === "dkim" && check.status === "missing" ? "Not Found" : "Invalid";
}

/** SPEC §8: a missing/invalid record shows its error message, or No record found (No records found for DKIM). */
export function missingText(kind: RecordKind, check: Pick<RecordCheck<string, unknown>, "errorMessage">): string {
  return check.errorMessage || (kind === "dkim" ? "No records found for DKIM" : "No record found");
}

/**
 * One record's result: its valid/invalid badge, the status badge of SPEC §4 when it says
 * more (Reject, Too many lookups, Weak key…), the record, and expandable details.
 */
export function RecordResult({ kind, check, summary, details }: { kind: RecordKind; check: RecordCheck<string, unknown>; summary: string; details?: ReactNode }) {
  const label = validityLabel(kind, check);
  const unchecked = check.status === "unchecked";
  const showStatus = !["valid", "invalid", "missing", "unchecked"].includes(check.status);
  const problems = check.findings.filter((f) => f.level !== "info").length;
  return (
    <section className="rounded-box border border-base-300 bg-base-100 p-4" aria-label={`${TITLES[kind]} result`} data-record={kind}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-semibold">{TITLES[kind]}</h3>
        <div className="flex flex-wrap items-center gap-1.5">
          {showStatus ? <StatusBadge status={check.status} /> : null}
          <StatusBadge status={check.isValid ? "valid" : unchecked ? "unchecked" : "invalid"} label={label} />
        </div>
      </div>
      {check.recordValue ? (
        <code className="mt-2 block rounded bg-base-200 px-2 py-1.5 text-xs break-all">{check.recordValue}</code>
      ) : null}
      {unchecked ? <p className="mt-2 text-sm">Could not check (DNS server did not answer)</p> : !check.isValid ? <p className="mt-2 text-sm text-error">{missingText(kind, check)}</p> : null}
      <details className="group mt-3">
        <summary className="cursor-pointer text-sm font-medium text-primary select-none">
          {problems ? `Details and fixes (${problems} to review)` : "Details"}
        </summary>
        <div className="mt-3 space-y-3">
          <p className="text-sm">{summary}</p>
          {details}
          <FindingList findings={check.findings} />
        </div>
      </details>
    </section>
  );
}
