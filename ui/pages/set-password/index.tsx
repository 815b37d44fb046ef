import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link, useNavigate, useSearchParams } from "react-router";
import { newPasswordFormSchema, PASSWORD_MIN, type NewPasswordFormInput, type TwoFactorChallenge } from "../../../src/features/auth/contract";
import { ApiError, apiRequest, errorMessage } from "../../lib/api";
import { isSignedIn, ME_KEY, type MeResponse } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { AuthCard, Field } from "../login/AuthCard";
import { CodeStep } from "../login/CodeStep";

const ASK_AGAIN = "/login?forgot=1";

/**
 * /set-password?token=…: the page a set-password link (forgot password, or a new trial
 * account) opens. Sets the password, signs in and goes to the dashboard; an account with
 * two-factor sign-in on enters its code first, as on /login.
 */
export default function SetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const navigate = useNavigate();
  const client = useQueryClient();
  const link = useQuery({
    queryKey: ["password-link", token],
    enabled: token.length > 0,
    retry: false,
    queryFn: async () => (await (await apiRequest("POST", "/api/auth/password-link/lookup", { token })).json()) as { email: string },
  });
  const [codeStep, setCodeStep] = useState(false);
  const form = useForm<NewPasswordFormInput>({ resolver: zodResolver(newPasswordFormSchema), defaultValues: { password: "", confirm: "" } });
  const save = useMutation({
    mutationFn: async (password: string) => (await (await apiRequest("POST", "/api/auth/reset-password", { token, password })).json()) as MeResponse | TwoFactorChallenge,
    onSuccess: (answer) => {
      // the password is set either way; with two-factor sign-in on, the session waits for the code
      if (!isSignedIn(answer)) {
        toast({ title: "Password set", description: "Enter the code from your authenticator app to sign in.", variant: "success" });
        return setCodeStep(true);
      }
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
      client.setQueryData(ME_KEY, answer);
      toast({ title: "Password set", description: "You are signed in. Next time, sign in with your email and this password.", variant: "success" });
      navigate("/app/dashboard", { replace: true });
    },
    onError: (error) => {
      const field = error instanceof ApiError ? error.fields?.password : undefined;
      if (field) form.setError("password", { message: field });
    },
  });

  if (codeStep) return <CodeStep onSignedIn={() => navigate("/app/dashboard", { replace: true })} onBack={() => navigate("/login", { replace: true })} />;
  if (!token || link.isError) {
    return (
      <AuthCard title="This link does not work" subtitle={token ? errorMessage(link.error) : "The address has no set-password token. Open the link from the mail again, or ask for a new one."}>
        <Link to={ASK_AGAIN} className="btn btn-primary w-full">
          Ask for a new link
        </Link>
        <Link to="/login" className="link link-primary text-center text-sm">
          Back to sign in
        </Link>
      </AuthCard>
    );
  }
  if (link.isPending) {
    return (
      <AuthCard title="Set your password">
        <p className="text-sm opacity-70" role="status">
          Checking your link...
        </p>
      </AuthCard>
    );
  }

  const errors = form.formState.errors;
  const serverError = save.isError && !(save.error instanceof ApiError && save.error.fields?.password) ? errorMessage(save.error) : null;
  return (
    <AuthCard
      title="Set your password"
      subtitle={
        <>
          For <strong>{link.data.email}</strong>. Setting it signs you in here and out everywhere else.
        </>
      }
      footer={
        <Link to="/login" className="link link-primary">
          Back to sign in
        </Link>
      }
    >
      <form onSubmit={form.handleSubmit((v) => save.mutate(v.password))} noValidate className="flex flex-col gap-4">
        {/* lets password managers store the new password under the right account */}
        <input type="email" name="username" autoComplete="username" value={link.data.email} readOnly hidden />
        <Field label="New password" error={errors.password?.message} hint={`At least ${PASSWORD_MIN} characters. A few words together make a good one.`}>
          <input {...form.register("password")} type="password" autoComplete="new-password" autoFocus className={`input input-bordered w-full ${errors.password ? "input-error" : ""}`} />
        </Field>
        <Field label="Repeat the new password" error={errors.confirm?.message}>
          <input {...form.register("confirm")} type="password" autoComplete="new-password" className={`input input-bordered w-full ${errors.confirm ? "input-error" : ""}`} />
        </Field>
        {serverError && (
          <div className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
            <p>{serverError}</p>
            <Link to={ASK_AGAIN} className="link mt-1 inline-block">
              Ask for a new link
            </Link>
          </div>
        )}
        <button type="submit" className="btn btn-primary w-full" disabled={save.isPending}>
          {save.isPending ? "Saving..." : "Set password and sign in"}
        </button>
      </form>
    </AuthCard>
  );
}
