import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { apiRequest, errorMessage } from "../../lib/api";
import type { TwoFactorChallenge } from "../../../src/features/auth/contract";
import { isSignedIn, ME_KEY, type MeResponse } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { AuthCard } from "../login/AuthCard";
import { CodeStep } from "../login/CodeStep";

/**
 * /verify-email?token=…: the page the sign-up confirmation mail opens. Confirms the address,
 * signs in and goes to the dashboard; an account with two-factor sign-in on enters its code
 * first, as on /login.
 */
export default function VerifyEmailPage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const navigate = useNavigate();
  const client = useQueryClient();
  const [codeStep, setCodeStep] = useState(false);
  const confirm = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/auth/verify-email", { token })).json()) as MeResponse | TwoFactorChallenge,
    onSuccess: (answer) => {
      if (!isSignedIn(answer)) {
        toast({ title: "Email address confirmed", description: "Enter the code from your authenticator app to sign in.", variant: "success" });
        return setCodeStep(true);
      }
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
      client.setQueryData(ME_KEY, answer);
      toast({ title: "Email address confirmed", description: "Your account is ready.", variant: "success" });
      navigate("/app/dashboard", { replace: true });
    },
  });
  const { mutate } = confirm;
  useEffect(() => {
    if (token) mutate();
  }, [token, mutate]);

  if (codeStep) return <CodeStep onSignedIn={() => navigate("/app/dashboard", { replace: true })} onBack={() => navigate("/login", { replace: true })} />;
  if (!token || confirm.isError) {
    return (
      <AuthCard title="This link does not work" subtitle={token ? errorMessage(confirm.error) : "The address has no confirmation token. Open the link from the mail again."}>
        <Link to="/signup" className="btn btn-primary w-full">
          Sign up again
        </Link>
        <Link to="/login" className="link link-primary text-center text-sm">
          Back to sign in
        </Link>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Confirming your email address">
      <p className="text-sm opacity-70" role="status">
        One moment...
      </p>
    </AuthCard>
  );
}
