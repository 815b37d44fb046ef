import { Copy, Download, KeyRound, ShieldCheck } from "lucide-react";
import { useState, type FormEvent } from "react";
import { QrCode } from "../../components/QrCode";
import { errorMessage } from "../../lib/api";
import { isSignedIn, useMe } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { useSetTwoFactorPolicy, useTwoFactorDisable, useTwoFactorEnable, useTwoFactorPolicy, useTwoFactorSetup } from "../../lib/twoFactor";
import { copyWithToast } from "../../lib/clipboard";

const grouped = (secret: string) => secret.replace(/(.{4})/g, "$1 ").trim();


/**
 * Settings → Two-factor sign-in: turn it on (QR code and secret shown once, a code to confirm,
 * ten recovery codes to save), turn it off with a code, and — for owners — require it of every member.
 */
export function TwoFactorSection({ enrolOnly = false }: { enrolOnly?: boolean }) {
  const me = useMe();
  const signedIn = isSignedIn(me.data) ? me.data : null;
  const enabled = signedIn?.twoFactor?.enabled ?? false;
  const isOwner = signedIn?.currentOrg?.role === "owner";
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-labelledby="two-factor-heading">
      <div className="card-body gap-4 p-4 sm:p-6">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div>
            <h2 id="two-factor-heading" className="text-lg font-semibold">
              Two-factor sign-in
            </h2>
            <p className="text-sm opacity-70">After your password, sign-in asks for a 6-digit code from an authenticator app on your phone (Google Authenticator, 1Password, Authy, …).</p>
          </div>
          <span className={`badge ${enabled ? "badge-success" : "badge-ghost"}`}>{enabled ? "On" : "Off"}</span>
        </div>
        {recoveryCodes ? (
          <RecoveryCodes codes={recoveryCodes} onDone={() => setRecoveryCodes(null)} />
        ) : enabled ? (
          <DisableForm />
        ) : (
          <Enrolment onEnabled={setRecoveryCodes} />
        )}
        {isOwner && !enrolOnly && <RequirePolicy ownEnabled={enabled} />}
      </div>
    </section>
  );
}

function CodeField({ value, onChange, label = "Code from your app", autoFocus }: { value: string; onChange: (v: string) => void; label?: string; autoFocus?: boolean }) {
  return (
    <label className="form-control w-full max-w-xs">
      <span className="label-text mb-1 text-sm font-medium">{label}</span>
      <input
        className="input input-bordered w-full font-mono tracking-widest"
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={40}
        value={value}
        autoFocus={autoFocus}
        onChange={(e) => onChange(e.target.value)}
        placeholder="123456"
      />
    </label>
  );
}

function Enrolment({ onEnabled }: { onEnabled: (codes: string[]) => void }) {
  const setup = useTwoFactorSetup();
  const enable = useTwoFactorEnable();
  const [code, setCode] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    enable.mutate(code.trim(), { onSuccess: (answer) => onEnabled(answer.recoveryCodes) });
  };
  if (!setup.data) {
    return (
      <div className="flex flex-col items-start gap-2">
        <button type="button" className="btn btn-primary" onClick={() => setup.mutate()} disabled={setup.isPending}>
          <ShieldCheck className="h-4 w-4" aria-hidden />
          {setup.isPending ? "Preparing..." : "Turn on two-factor sign-in"}
        </button>
        {setup.isError && (
          <p className="text-sm text-error" role="alert">
            {errorMessage(setup.error)}
          </p>
        )}
      </div>
    );
  }
  return (
    <form onSubmit={submit} className="flex flex-col gap-4" aria-label="Set up two-factor sign-in">
      <ol className="list-decimal space-y-1 pl-5 text-sm">
        <li>Scan this QR code with your authenticator app, or type the secret into it.</li>
        <li>Enter the 6-digit code the app shows, to confirm.</li>
      </ol>
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
        <div className="self-start rounded-box border border-base-300 bg-white p-2">
          <QrCode text={setup.data.otpauthUrl} label="QR code for your authenticator app" />
        </div>
        <div className="min-w-0 space-y-2">
          <p className="text-sm opacity-70">Secret (shown only now):</p>
          <div className="flex items-center gap-2">
            <code className="break-all rounded bg-base-200 px-2 py-1 font-mono text-sm" data-testid="totp-secret">
              {grouped(setup.data.secret)}
            </code>
            <button type="button" className="btn btn-ghost btn-sm btn-square" aria-label="Copy the secret" onClick={() => copyWithToast(setup.data!.secret, "Secret")}>
              <Copy className="h-4 w-4" aria-hidden />
            </button>
          </div>
        </div>
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <CodeField value={code} onChange={setCode} autoFocus />
        <button type="submit" className="btn btn-primary" disabled={enable.isPending || code.trim().length < 6}>
          {enable.isPending ? "Checking..." : "Confirm"}
        </button>
      </div>
      {enable.isError && (
        <p className="text-sm text-error" role="alert">
          {errorMessage(enable.error)}
        </p>
      )}
    </form>
  );
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = codes.join("\n");
  const download = () => {
    const url = URL.createObjectURL(new Blob([`dmarcwarden recovery codes (each works once)\n\n${text}\n`], { type: "text/plain" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: "dmarcwarden-recovery-codes.txt" });
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <div className="flex flex-col gap-3" role="region" aria-label="Your recovery codes">
      <div className="alert alert-success text-sm">
        <KeyRound className="h-5 w-5" aria-hidden />
        <span>Two-factor sign-in is on. Save these recovery codes somewhere safe: each one signs you in once if you lose your phone. They are shown only now.</span>
      </div>
      <ul className="grid grid-cols-2 gap-2 font-mono text-sm sm:grid-cols-5" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c} className="rounded bg-base-200 px-2 py-1 text-center">
            {c}
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-2">
        <button type="button" className="btn btn-sm" onClick={() => copyWithToast(text, "Recovery codes")}>
          <Copy className="h-4 w-4" aria-hidden /> Copy
        </button>
        <button type="button" className="btn btn-sm" onClick={download}>
          <Download className="h-4 w-4" aria-hidden /> Download
        </button>
        <button type="button" className="btn btn-primary btn-sm" onClick={onDone}>
          I have saved them
        </button>
      </div>
    </div>
  );
}

function DisableForm() {
  const disable = useTwoFactorDisable();
  const [open, setOpen] = useState(false);
  const [code, setCode] = useState("");
  if (!open) {
    return (
      <div>
        <button type="button" className="btn btn-outline btn-sm" onClick={() => setOpen(true)}>
          Turn off
        </button>
      </div>
    );
  }
  return (
    <form
      className="flex flex-col gap-2"
      aria-label="Turn off two-factor sign-in"
      onSubmit={(e) => {
        e.preventDefault();
        disable.mutate(code.trim(), { onSuccess: () => toast({ title: "Two-factor sign-in is off" }) });
      }}
    >
      <div className="flex flex-wrap items-end gap-2">
        <CodeField value={code} onChange={setCode} label="Code from your app, or a recovery code" autoFocus />
        <button type="submit" className="btn btn-error btn-outline" disabled={disable.isPending || code.trim().length < 6}>
          {disable.isPending ? "Turning off..." : "Turn off two-factor sign-in"}
        </button>
        <button type="button" className="btn btn-ghost" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
      {disable.isError && (
        <p className="text-sm text-error" role="alert">
          {errorMessage(disable.error)}
        </p>
      )}
    </form>
  );
}

function RequirePolicy({ ownEnabled }: { ownEnabled: boolean }) {
  const policy = useTwoFactorPolicy();
  const save = useSetTwoFactorPolicy();
  const required = policy.data?.required ?? false;
  return (
    <div className="border-t border-base-300 pt-4">
      <label className="flex cursor-pointer items-start gap-3">
        <input
          type="checkbox"
          className="toggle toggle-primary mt-0.5"
          checked={required}
          disabled={policy.isPending || save.isPending || (!ownEnabled && !required)}
          onChange={(e) => save.mutate(e.target.checked, { onSuccess: (a) => toast({ title: a.required ? "Two-factor sign-in required for every member" : "Two-factor sign-in no longer required" }) })}
        />
        <span>
          <span className="font-medium">Require two-factor sign-in for every member</span>
          <span className="block text-sm opacity-70">
            {ownEnabled || required ? "Members without it are asked to turn it on before they can do anything else." : "Turn it on for your own account first."}
          </span>
        </span>
      </label>
      {save.isError && (
        <p className="mt-2 text-sm text-error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
    </div>
  );
}
