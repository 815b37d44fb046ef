import type { ReactNode } from "react";
import type { FieldError } from "react-hook-form";

/**
 * A labelled form field: the label (with "(optional)" or a required star when asked), the
 * input, then its error message (announced) or a hint.
 */
export function FormField({
  label,
  htmlFor,
  optional,
  required,
  hint,
  error,
  errorId,
  className = "grid gap-1.5",
  children,
}: {
  label: string;
  htmlFor: string;
  optional?: boolean;
  required?: boolean;
  hint?: string;
  error?: FieldError;
  errorId: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className}>
      <label htmlFor={htmlFor} className="text-sm font-medium">
        {label}
        {optional ? <span className="ml-1 font-normal opacity-60">(optional)</span> : required ? <span className="ml-0.5 text-error" aria-hidden>*</span> : null}
      </label>
      {children}
      {error?.message ? (
        <p id={errorId} className="text-sm text-error" role="alert">
          {error.message}
        </p>
      ) : hint ? (
        <p className="text-xs opacity-60">{hint}</p>
      ) : null}
    </div>
  );
}
