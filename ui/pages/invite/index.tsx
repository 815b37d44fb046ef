import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useSearchParams } from "react-router";
import { apiRequest, errorMessage } from "../../lib/api";
import { isSignedIn, ME_KEY, ROLE_LABELS, useMe, type MeResponse } from "../../lib/auth";
import { AuthCard } from "../login/AuthCard";

interface InvitationInfo {
  organization: string;
  email: string;
  role: keyof typeof ROLE_LABELS;
}

/** /invite?token=…: what the invitation is for, then accept it (signing in or up first). */
export default function InvitePage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const navigate = useNavigate();
  const client = useQueryClient();
  const me = useMe();
  const info = useQuery({
    queryKey: ["invitation", token],
    enabled: token.length > 0,
    queryFn: async () => (await (await apiRequest("POST", "/api/invitations/lookup", { token })).json()) as InvitationInfo,
  });
  const accept = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/invitations/accept", { token })).json()) as MeResponse,
    onSuccess: (data) => {
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
      client.setQueryData(ME_KEY, data);
      navigate("/app/dashboard", { replace: true });
    },
  });
  const here = `/invite?token=${encodeURIComponent(token)}`;

  if (!token || info.isError) {
    return (
      <AuthCard title="Invitation not valid">
        <p className="text-sm">{token ? errorMessage(info.error) : "This link has no invitation in it. Ask for a new one."}</p>
        <Link to="/login" className="btn btn-primary">
          Go to sign in
        </Link>
      </AuthCard>
    );
  }
  if (info.isPending || me.isPending) {
    return (
      <AuthCard title="Invitation">
        <span className="loading loading-spinner text-primary" role="status" aria-label="Loading" />
      </AuthCard>
    );
  }
  const inv = info.data;
  return (
    <AuthCard title={`Join ${inv.organization}`} subtitle={`You were invited as ${ROLE_LABELS[inv.role]} (${inv.email}).`}>
      {isSignedIn(me.data) ? (
        <>
          {me.data.user.email !== inv.email && (
            <p className="text-sm text-warning">
              You are signed in as {me.data.user.email}. This invitation is for {inv.email}.
            </p>
          )}
          {accept.isError && (
            <p className="text-sm text-error" role="alert">
              {errorMessage(accept.error)}
            </p>
          )}
          <button type="button" className="btn btn-primary" onClick={() => accept.mutate()} disabled={accept.isPending}>
            {accept.isPending ? "Joining..." : "Accept invitation"}
          </button>
        </>
      ) : (
        <div className="flex flex-col gap-2">
          <p className="text-sm">Sign in or create an account with {inv.email} to accept.</p>
          <Link to={`/signup?next=${encodeURIComponent(here)}`} className="btn btn-primary">
            Create account
          </Link>
          <Link to={`/login?next=${encodeURIComponent(here)}`} className="btn btn-outline">
            Sign in
          </Link>
        </div>
      )}
    </AuthCard>
  );
}
