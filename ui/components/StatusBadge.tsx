/**
 * SPEC §4 status badges: reject/valid/configured/protected are good; quarantine/partial/
 * weak key (and the demo's warning) are warnings; none/missing/too many lookups/vulnerable
 * (and invalid) are bad. Anything else (e.g. pending) is neutral.
 */
export type BadgeTone = "good" | "warning" | "bad" | "neutral";

const TONES: Record<string, BadgeTone> = {
  reject: "good",
  valid: "good",
  configured: "good",
  protected: "good",
  quarantine: "warning",
  partial: "warning",
  "weak key": "warning",
  warning: "warning",
  none: "bad",
  missing: "bad",
  "too many lookups": "bad",
  vulnerable: "bad",
  invalid: "bad",
};

const CLASSES: Record<BadgeTone, string> = {
  good: "badge-success",
  warning: "badge-warning",
  bad: "badge-error",
  neutral: "badge-ghost",
};

export function statusTone(status: string | null | undefined): BadgeTone {
  return TONES[(status ?? "").toLowerCase()] ?? "neutral";
}

/** The badge text: the status itself with its first letter capitalised ("too many lookups" → "Too many lookups"). */
export function statusLabel(status: string | null | undefined): string {
  const s = status ?? "pending";
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function StatusBadge({ status, label }: { status: string | null | undefined; label?: string }) {
  const tone = statusTone(status);
  return (
    <span className={`badge badge-sm whitespace-nowrap font-medium ${CLASSES[tone]}`} data-tone={tone}>
      {label ?? statusLabel(status)}
    </span>
  );
}
