import type { ReactNode } from "react";

/** A label wrapping its input, then the server's error for it or a hint (the SSO and white-label cards). */
export function WrappingField({ label, error, hint, children }: { label: string; error?: string; hint?: string; children: ReactNode }) {
  return (
    <label className="form-control min-w-0">
      <span className="label-text mb-1 text-sm">{label}</span>
      {children}
      {error ? <span className="mt-1 text-xs text-error">{error}</span> : hint ? <span className="mt-1 text-xs opacity-60">{hint}</span> : null}
    </label>
  );
}
