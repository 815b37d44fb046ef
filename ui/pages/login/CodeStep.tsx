import { useState, type FormEvent } from "react";
import { errorMessage } from "../../lib/api";
import { useSignInCode } from "../../lib/auth";
import { AuthCard, Field } from "./AuthCard";

/** The second sign-in step: the 6-digit code from the authenticator app, or a recovery code. */
export function CodeStep({ onSignedIn, onBack }: { onSignedIn: () => void; onBack: () => void }) {
  const signInCode = useSignInCode();
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState("");
  const [missing, setMissing] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const typed = code.trim();
    if (typed.length < 6) return setMissing(recovery ? "Enter one of your recovery codes" : "Enter the 6-digit code from your authenticator app");
    setMissing(null);
    signInCode.mutate(typed, { onSuccess: onSignedIn });
  };
  return (
    <AuthCard
      title="Two-factor sign-in"
      subtitle={recovery ? "Enter one of the recovery codes you saved when you turned on two-factor sign-in. Each works once." : "Enter the 6-digit code your authenticator app shows for dmarcwarden."}
      footer={
        <button type="button" className="link link-hover" onClick={onBack}>
          Back to email and password
        </button>
      }
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <Field label={recovery ? "Recovery code" : "Authentication code"} error={missing ?? undefined}>
          <input
            key={recovery ? "recovery" : "totp"}
            className={`input input-bordered w-full font-mono tracking-widest ${missing ? "input-error" : ""}`}
            inputMode={recovery ? "text" : "numeric"}
            autoComplete="one-time-code"
            autoFocus
            maxLength={40}
            placeholder={recovery ? "abcde-fghjk" : "123456"}
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
        </Field>
        {signInCode.isError && (
          <p className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
            {errorMessage(signInCode.error)}
          </p>
        )}
        <button type="submit" className="btn btn-primary w-full" disabled={signInCode.isPending}>
          {signInCode.isPending ? "Checking..." : "Verify"}
        </button>
        <button
          type="button"
          className="link link-hover text-sm text-primary"
          onClick={() => {
            setRecovery(!recovery);
            setCode("");
            setMissing(null);
            signInCode.reset();
          }}
        >
          {recovery ? "Use the code from your app instead" : "Lost your phone? Use a recovery code"}
        </button>
      </form>
    </AuthCard>
  );
}
