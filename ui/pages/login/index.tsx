import { zodResolver } from "@hookform/resolvers/zod";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useNavigate, useSearchParams } from "react-router";
import { loginSchema, type LoginInput } from "../../../src/features/auth/contract";
import { AuthCard, Field } from "./AuthCard";
import { ForgotPassword } from "./ForgotPassword";
import { CodeStep } from "./CodeStep";
import { SsoStep, ssoErrorMessage } from "./SsoStep";
import { errorMessage } from "../../lib/api";
import { isSignedIn, safeNext, useSignIn } from "../../lib/auth";
import { OAUTH_SIGNED_OUT_MESSAGE, OAUTH_SIGNED_OUT_NOTICE } from "../../../src/features/mailin/oauth-contract";

/** `?notice=`: why the browser was sent here (the session ended on the way back from a mailbox provider) */
const NOTICES: Record<string, string> = { [OAUTH_SIGNED_OUT_NOTICE]: OAUTH_SIGNED_OUT_MESSAGE };

/** /login: email + password; afterwards to ?next= (same-site paths only) or the dashboard. ?forgot=1: ask for a set-password link. */
export default function LoginPage() {
  const [params, setParams] = useSearchParams();
  const next = safeNext(params.get("next"));
  const navigate = useNavigate();
  const signIn = useSignIn();
  const { register, handleSubmit, formState, getValues } = useForm<LoginInput>({ resolver: zodResolver(loginSchema), defaultValues: { email: params.get("email") ?? "", password: "" } });
  // ?sso=code: back from single sign-on, the account's own second factor comes next
  const [codeStep, setCodeStep] = useState(params.get("sso") === "code");
  const submit = handleSubmit((values) =>
    signIn.mutate({ email: values.email, password: values.password }, { onSuccess: (answer) => (isSignedIn(answer) ? navigate(next, { replace: true }) : setCodeStep(true)) }),
  );
  const notice = NOTICES[params.get("notice") ?? ""] ?? null;
  const signupHref = params.get("next") ? `/signup?next=${encodeURIComponent(next)}` : "/signup";
  const setForgot = (on: boolean, email = "") =>
    setParams((p) => {
      const q = new URLSearchParams(p);
      q.delete("email");
      if (on) q.set("forgot", "1");
      else q.delete("forgot");
      if (email) q.set("email", email);
      return q;
    });

  const setSso = (on: boolean, identifier = "") =>
    setParams((p) => {
      const q = new URLSearchParams(p);
      q.delete("sso");
      q.delete("sso_error");
      q.delete("email");
      if (on) q.set("sso", "1");
      if (identifier) q.set("email", identifier);
      return q;
    });

  if (codeStep) return <CodeStep onSignedIn={() => navigate(next, { replace: true })} onBack={() => (signIn.reset(), setCodeStep(false), setSso(false))} />;
  if (params.get("sso") === "1" || params.get("sso_error"))
    return <SsoStep next={next} initialIdentifier={params.get("email") ?? ""} returnedError={ssoErrorMessage(params.get("sso_error"))} onBack={() => setSso(false)} />;
  if (params.get("forgot") === "1") return <ForgotPassword email={params.get("email") ?? ""} onBack={() => setForgot(false)} />;

  return (
    <AuthCard
      title="Sign in"
      subtitle="Welcome back. Sign in to monitor your domains."
      footer={
        <span>
          No account yet?{" "}
          <Link to={signupHref} className="link link-primary">
            Create one
          </Link>
        </span>
      }
    >
      {notice && (
        <p className="mb-4 rounded-box bg-warning/15 px-3 py-2 text-sm" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <Field label="Email" error={formState.errors.email?.message}>
          <input {...register("email")} type="email" autoComplete="email" className={`input input-bordered w-full ${formState.errors.email ? "input-error" : ""}`} />
        </Field>
        <div>
          <Field label="Password" error={formState.errors.password?.message}>
            <input {...register("password")} type="password" autoComplete="current-password" className={`input input-bordered w-full ${formState.errors.password ? "input-error" : ""}`} />
          </Field>
          <div className="mt-1 text-right">
            <button type="button" className="link link-hover text-sm text-primary" onClick={() => setForgot(true, getValues("email").trim())}>
              Forgot password?
            </button>
          </div>
        </div>
        {signIn.isError && (
          <p className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
            {errorMessage(signIn.error)}
          </p>
        )}
        <button type="submit" className="btn btn-primary w-full" disabled={signIn.isPending}>
          {signIn.isPending ? "Signing in..." : "Sign in"}
        </button>
      </form>
      <div className="divider my-0 text-xs opacity-70">or</div>
      <button type="button" className="btn btn-outline w-full" onClick={() => setSso(true, getValues("email").trim())}>
        Sign in with SSO
      </button>
    </AuthCard>
  );
}
