import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { AlertTriangle, Clock, KeyRound, Lock } from "lucide-react";
import { useId, useState } from "react";
import { useForm } from "react-hook-form";
import { setPasswordSchema, type BillingStatus } from "../../src/features/billing/contract";
import { ApiError, apiRequest, errorMessage } from "../lib/api";
import { getQueryFn } from "../lib/queryClient";
import { toast } from "../lib/toast";

export const billingStatusKey = ["/api/billing/status"] as const;

/** The signed-in organisation's billing state (null when signed out). */
export function useBillingStatus() {
  return useQuery<BillingStatus | null>({ queryKey: billingStatusKey, queryFn: getQueryFn({ on401: "returnNull" }) });
}

/**
 * Account notices shown above the app's screens: read-only (canceled, or trial ended without a
 * card), a failed payment (past_due), the days left in a trial, and — for an account made by
 * /trial — the prompt to set a password so its owner can sign in again from /login.
 */
export function AccountBanners({ now = new Date() }: { now?: Date }) {
  const status = useBillingStatus();
  const data = status.data;
  if (!data) return null;
  const daysLeft = data.status === "trialing" && data.trialEndsAt ? Math.max(0, Math.ceil((new Date(data.trialEndsAt).getTime() - now.getTime()) / 86400_000)) : null;
  // nothing to say: no empty region (and no gap) above the screen
  // the prompt only when the server says the account has no password (never on a status it did not send)
  const noPassword = data.hasPassword === false;
  if (!data.readOnly && data.status !== "past_due" && daysLeft === null && !noPassword) return null;
  return (
    <div className="mb-6 grid gap-3" aria-label="Account notices" role="region">
      {data.readOnly && (
        <div role="alert" className="alert alert-error">
          <Lock className="h-5 w-5" aria-hidden />
          <div>
            <h3 className="font-semibold">Your organization is read-only</h3>
            <p className="text-sm">{data.readOnlyMessage}</p>
          </div>
        </div>
      )}
      {data.status === "past_due" && (
        <div role="alert" className="alert alert-warning">
          <AlertTriangle className="h-5 w-5" aria-hidden />
          <div>
            <h3 className="font-semibold">Your last payment failed</h3>
            <p className="text-sm">We could not charge your card for the {data.planName} plan. Please update your payment method or contact support to keep your subscription active.</p>
          </div>
        </div>
      )}
      {!data.readOnly && daysLeft !== null && (
        <div role="status" className="alert alert-info alert-soft">
          <Clock className="h-5 w-5" aria-hidden />
          <span className="text-sm">
            {daysLeft === 1 ? "1 day" : `${daysLeft} days`} left in your free trial of {data.planName}.
          </span>
        </div>
      )}
      {noPassword && <SetPasswordPrompt />}
    </div>
  );
}

function SetPasswordPrompt() {
  const uid = useId();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const form = useForm<{ password: string }>({ resolver: zodResolver(setPasswordSchema), defaultValues: { password: "" } });
  const save = useMutation({
    mutationFn: (values: { password: string }) => apiRequest("POST", "/api/auth/set-password", values),
    onSuccess: () => {
      toast({ title: "Password set", description: "You can now sign in from the sign-in page with your email and this password.", variant: "success" });
      void queryClient.invalidateQueries({ queryKey: billingStatusKey });
    },
    onError: (error) => {
      const field = error instanceof ApiError ? error.fields?.password : undefined;
      form.setError("password", { message: field ?? errorMessage(error) });
    },
  });
  const error = form.formState.errors.password?.message;
  return (
    <section aria-labelledby={`${uid}-title`} className="alert items-start border border-primary/30 bg-base-100">
      <KeyRound className="mt-1 h-5 w-5 text-primary" aria-hidden />
      <div className="grid w-full gap-2">
        <div>
          <h3 id={`${uid}-title`} className="font-semibold">
            Set your password
          </h3>
          <p className="text-sm text-base-content/70">Your account has no password yet. Set one so you can sign in again later.</p>
        </div>
        {open ? (
          <form noValidate className="flex flex-col gap-2 sm:flex-row sm:items-start" onSubmit={form.handleSubmit((v) => save.mutate(v))}>
            <div className="grid flex-1 gap-1">
              <label htmlFor={`${uid}-password`} className="sr-only">
                New password
              </label>
              <input
                id={`${uid}-password`}
                type="password"
                autoComplete="new-password"
                placeholder="At least 10 characters"
                className="input w-full"
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${uid}-error` : undefined}
                {...form.register("password")}
              />
              {error && (
                <p id={`${uid}-error`} role="alert" className="text-sm text-error">
                  {error}
                </p>
              )}
            </div>
            <button type="submit" className="btn btn-primary" disabled={save.isPending}>
              {save.isPending ? "Saving..." : "Save Password"}
            </button>
          </form>
        ) : (
          <div>
            <button type="button" className="btn btn-primary btn-sm" onClick={() => setOpen(true)}>
              Set Password
            </button>
          </div>
        )}
      </div>
    </section>
  );
}
