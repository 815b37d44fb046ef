import { zodResolver } from "@hookform/resolvers/zod";
import { ArrowLeft } from "lucide-react";
import { useEffect, useId, type ReactNode } from "react";
import { useForm, type FieldError } from "react-hook-form";
import { Link } from "react-router";
import { DOMAINS_MAX, DOMAINS_MIN, parseDomainCount, trialSetupSchema, type TrialSetupInput } from "../../../src/features/billing/contract";
import { PLANS } from "../../../src/lib/plans";

export type TrialDetails = Omit<TrialSetupInput, "selectedPlan">;
export const EMPTY_DETAILS: TrialDetails = { company: "", email: "", domains: 1, firstName: "", lastName: "" };

/**
 * Step 2: company, email, number of domains (1–100, parsed as an integer with 1 as fallback),
 * first and last name — all required, checked with the server's own schema.
 */
export function DetailsStep({
  plan,
  carriedDomain = null,
  defaultValues,
  serverFields,
  submitting = false,
  onBack,
  onSubmit,
}: {
  plan: TrialSetupInput["selectedPlan"];
  /** the domain a setup wizard's visitor entered: added to the organization once the account exists */
  carriedDomain?: string | null;
  defaultValues: TrialDetails;
  /** field messages from a refused details call (e.g. the email is already registered) */
  serverFields?: Record<string, string>;
  submitting?: boolean;
  onBack: (values: TrialDetails) => void;
  onSubmit: (values: TrialSetupInput) => void;
}) {
  const uid = useId();
  const form = useForm<TrialSetupInput>({ resolver: zodResolver(trialSetupSchema), defaultValues: { ...defaultValues, selectedPlan: plan } });
  const {
    register,
    handleSubmit,
    getValues,
    setError,
    formState: { errors },
  } = form;

  useEffect(() => {
    for (const [name, message] of Object.entries(serverFields ?? {})) {
      if (name in EMPTY_DETAILS) setError(name as keyof TrialDetails, { message });
    }
  }, [serverFields, setError]);

  const id = (name: string) => `${uid}-${name}`;
  const field = (name: keyof TrialDetails) => ({
    id: id(name),
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": errors[name] ? id(`${name}-error`) : undefined,
  });
  const values = (): TrialDetails => {
    const { selectedPlan: _plan, ...rest } = getValues();
    return rest;
  };

  return (
    <section aria-labelledby="details-heading" className="mx-auto grid w-full max-w-xl gap-6">
      <div>
        <h2 id="details-heading" className="text-2xl font-bold">Tell us about your organization</h2>
        <p className="mt-1 text-base-content/70">
          You chose <strong>{PLANS[plan].name}</strong> ({PLANS[plan].priceLabel}) with a 7-day free trial.
        </p>
      </div>
      <form noValidate aria-label="Trial details" className="grid gap-4 rounded-box border border-base-300 bg-base-100 p-5 shadow-sm" onSubmit={handleSubmit(onSubmit)}>
        <Field label="Company Name" htmlFor={id("company")} error={errors.company} errorId={id("company-error")}>
          <input {...register("company")} {...field("company")} className="input w-full" autoComplete="organization" maxLength={200} placeholder="Acme Dental" />
        </Field>
        <Field label="Work Email" htmlFor={id("email")} error={errors.email} errorId={id("email-error")}>
          <input {...register("email")} {...field("email")} type="email" className="input w-full" autoComplete="email" maxLength={254} placeholder="you@company.com" />
        </Field>
        {errors.email?.message?.includes("already exists") && (
          <p className="-mt-2 text-sm">
            <Link to="/login" className="link link-primary">
              Sign in to your account
            </Link>
          </p>
        )}
        {carriedDomain && (
          <p className="rounded-box bg-primary/5 px-3 py-2 text-sm" data-carried-domain>
            <strong>{carriedDomain}</strong> from your setup guide is added to your domains as soon as your account is ready.
          </p>
        )}
        <Field
          label="Number of Domains"
          hint={`How many domains you plan to protect (${DOMAINS_MIN} to ${DOMAINS_MAX}). This adds none: you add each domain on the Domains page${carriedDomain ? " (the one above is added for you)" : ""}.`} htmlFor={id("domains")} error={errors.domains} errorId={id("domains-error")}>
          <input
            {...register("domains", { setValueAs: parseDomainCount })}
            {...field("domains")}
            type="number"
            inputMode="numeric"
            min={DOMAINS_MIN}
            max={DOMAINS_MAX}
            step={1}
            className="input w-full"
          />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="First Name" htmlFor={id("firstName")} error={errors.firstName} errorId={id("firstName-error")}>
            <input {...register("firstName")} {...field("firstName")} className="input w-full" autoComplete="given-name" maxLength={100} />
          </Field>
          <Field label="Last Name" htmlFor={id("lastName")} error={errors.lastName} errorId={id("lastName-error")}>
            <input {...register("lastName")} {...field("lastName")} className="input w-full" autoComplete="family-name" maxLength={100} />
          </Field>
        </div>
        <div className="mt-2 flex flex-col-reverse gap-2 sm:flex-row sm:justify-between">
          <button type="button" className="btn btn-ghost" onClick={() => onBack(values())}>
            <ArrowLeft className="h-4 w-4" aria-hidden />
            Back
          </button>
          <button type="submit" className="btn btn-primary" disabled={submitting}>
            {submitting ? (
              <>
                <span className="loading loading-spinner loading-sm" aria-hidden />
                Setting up your trial...
              </>
            ) : (
              "Continue"
            )}
          </button>
        </div>
      </form>
    </section>
  );
}

function Field({ label, hint, htmlFor, error, errorId, children }: { label: string; hint?: string; htmlFor: string; error?: FieldError; errorId: string; children: ReactNode }) {
  return (
    <div className="grid gap-1">
      <label htmlFor={htmlFor} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {error?.message ? (
        <p id={errorId} role="alert" className="text-sm text-error">
          {error.message}
        </p>
      ) : (
        hint && <p className="text-xs text-base-content/60">{hint}</p>
      )}
    </div>
  );
}
