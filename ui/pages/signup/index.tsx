import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useNavigate, useSearchParams } from "react-router";
import { PASSWORD_MIN, signupSchema, type SignupInput } from "../../../src/features/auth/contract";
import { AuthCard, Field } from "../login/AuthCard";
import { ApiError, apiRequest, errorMessage } from "../../lib/api";
import { safeNext, useSignUp } from "../../lib/auth";
import { clearWizardDetails, wizardDetails } from "../../lib/wizard-handoff";

/** /signup: name, email, password and the organization the new user will own. */
export default function SignupPage() {
  const [params] = useSearchParams();
  const next = safeNext(params.get("next"));
  const navigate = useNavigate();
  const signUp = useSignUp();
  // what a setup wizard's visitor already typed: organization and email here, the domain added once signed in
  const [carried] = useState(() => wizardDetails());
  const { register, handleSubmit, formState, setError } = useForm<SignupInput>({
    resolver: zodResolver(signupSchema),
    defaultValues: { name: "", email: carried?.email ?? "", password: "", organization: carried?.name ?? "" },
  });
  const submit = handleSubmit((values) =>
    signUp.mutate(values as Required<SignupInput>, {
      onSuccess: async (answer) => {
        if ("verificationSent" in answer) return; // not signed in yet: the wizard's details wait for the next visit
        if (carried?.domain) await apiRequest("POST", "/api/domains", { name: carried.domain }).catch(() => undefined);
        clearWizardDetails();
        navigate(next, { replace: true });
      },
      onError: (e) => {
        const fields = e instanceof ApiError ? e.fields : undefined;
        for (const [name, message] of Object.entries(fields ?? {})) if (name in values) setError(name as keyof SignupInput, { message });
      },
    }),
  );
  const loginHref = params.get("next") ? `/login?next=${encodeURIComponent(next)}` : "/login";
  const err = (name: keyof SignupInput) => formState.errors[name]?.message;
  const cls = (name: keyof SignupInput) => `input input-bordered w-full ${formState.errors[name] ? "input-error" : ""}`;

  const answer = signUp.data;
  if (answer && "verificationSent" in answer) {
    return (
      <AuthCard title="Check your inbox" subtitle={answer.message}>
        <Link to="/login" className="link link-primary text-center text-sm">
          Back to sign in
        </Link>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Create your account"
      subtitle="Start monitoring who sends email in your name."
      footer={
        <span>
          Already have an account?{" "}
          <Link to={loginHref} className="link link-primary">
            Sign in
          </Link>
        </span>
      }
    >
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        {carried?.domain && (
          <p className="rounded-box bg-primary/5 px-3 py-2 text-sm" data-carried-domain>
            <strong>{carried.domain}</strong> from your setup guide is added to your domains as soon as your account is ready.
          </p>
        )}
        <Field label="Your name" error={err("name")}>
          <input {...register("name")} autoComplete="name" className={cls("name")} />
        </Field>
        <Field label="Email" error={err("email")}>
          <input {...register("email")} type="email" autoComplete="email" className={cls("email")} />
        </Field>
        <Field label="Password" error={err("password")} hint={`At least ${PASSWORD_MIN} characters. A few words together make a good one.`}>
          <input {...register("password")} type="password" autoComplete="new-password" className={cls("password")} />
        </Field>
        <Field label="Organization name" error={err("organization")}>
          <input {...register("organization")} autoComplete="organization" className={cls("organization")} />
        </Field>
        {signUp.isError && (
          <p className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
            {errorMessage(signUp.error)}
          </p>
        )}
        <button type="submit" className="btn btn-primary w-full" disabled={signUp.isPending}>
          {signUp.isPending ? "Creating account..." : "Create account"}
        </button>
      </form>
    </AuthCard>
  );
}
