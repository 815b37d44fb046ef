import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { SSO_ERRORS, type SsoErrorCode, type SsoStartResponse } from "../../../src/features/sso/contract";
import { apiRequest, errorMessage } from "../../lib/api";
import { AuthCard, Field } from "./AuthCard";

/** The words for `/login?sso_error=<code>`, or null for no (or an unknown) code. */
export function ssoErrorMessage(code: string | null): string | null {
  return code && code in SSO_ERRORS ? SSO_ERRORS[code as SsoErrorCode] : null;
}

/** Sign in with SSO: a work email (or the organisation's short name), then off to the identity provider. */
export function SsoStep({ next, initialIdentifier, returnedError, onBack }: { next: string; initialIdentifier: string; returnedError: string | null; onBack: () => void }) {
  const [identifier, setIdentifier] = useState(initialIdentifier);
  const [missing, setMissing] = useState<string | null>(null);
  const start = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/auth/sso/start", { identifier: identifier.trim(), next })).json()) as SsoStartResponse,
    // a full navigation: the identity provider's page, then back through the server's callback
    onSuccess: (answer) => window.location.assign(answer.redirectUrl),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!identifier.trim()) return setMissing("Enter your work email address or your organization's short name");
    setMissing(null);
    start.mutate();
  };
  const shown = start.isError ? errorMessage(start.error) : start.isIdle ? returnedError : null;
  return (
    <AuthCard
      title="Sign in with SSO"
      subtitle="Use your organization's identity provider (Microsoft, Google, Okta and others)."
      footer={
        <button type="button" className="link link-hover" onClick={onBack}>
          Back to email and password
        </button>
      }
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <Field label="Work email or organization short name" error={missing ?? undefined}>
          <input
            className={`input input-bordered w-full ${missing ? "input-error" : ""}`}
            type="text"
            inputMode="email"
            autoComplete="email"
            autoFocus
            maxLength={254}
            placeholder="you@example.com"
            value={identifier}
            onChange={(e) => setIdentifier(e.target.value)}
          />
        </Field>
        {shown && (
          <p className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
            {shown}
          </p>
        )}
        <button type="submit" className="btn btn-primary w-full" disabled={start.isPending || start.isSuccess}>
          {start.isPending || start.isSuccess ? "Opening your identity provider..." : "Continue"}
        </button>
      </form>
    </AuthCard>
  );
}
