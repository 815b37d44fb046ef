import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, MailCheck, Trash2, UserPlus } from "lucide-react";
import { useState } from "react";
import type { InviteResponse, MembersResponse } from "../../../src/features/orgs/contract";
import { apiRequest, errorMessage } from "../../lib/api";
import { isSignedIn, ROLE_LABELS, useMe, type OrgSummary } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { ScrollArea } from "../../components/ScrollArea";

type Role = OrgSummary["role"];
const ROLES: Role[] = ["owner", "admin", "member", "viewer"];
const MEMBERS_KEY = ["/api/members"] as const;

/** Settings → Members: who belongs to the organisation, invitations, roles. */
export function MembersSection() {
  const me = useMe();
  const client = useQueryClient();
  const members = useQuery<MembersResponse>({ queryKey: MEMBERS_KEY });
  const myRole = isSignedIn(me.data) ? me.data.currentOrg?.role : undefined;
  const manages = myRole === "owner" || myRole === "admin";
  const [error, setError] = useState<string | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: MEMBERS_KEY });
  const changeRole = useMutation({
    mutationFn: async ({ id, role }: { id: string; role: Role }) => apiRequest("PATCH", `/api/members/${encodeURIComponent(id)}`, { role }),
    onSuccess: () => {
      setError(null);
      refresh();
      toast({ title: "Role changed" });
    },
    onError: (e) => setError(errorMessage(e)),
  });
  const remove = useMutation({
    mutationFn: async (id: string) => apiRequest("DELETE", `/api/members/${encodeURIComponent(id)}`),
    onSuccess: () => {
      setError(null);
      refresh();
      toast({ title: "Member removed" });
    },
    onError: (e) => setError(errorMessage(e)),
  });

  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-labelledby="members-heading">
      <div className="card-body gap-4 p-4 sm:p-6">
        <div>
          <h2 id="members-heading" className="text-lg font-semibold">
            Members
          </h2>
          <p className="text-sm opacity-70">Viewers read; members also upload reports and run lookups; admins also manage domains, settings and members; owners also billing.</p>
        </div>
        {manages && <InviteForm onInvited={refresh} />}
        {error && (
          <p className="text-sm text-error" role="alert">
            {error}
          </p>
        )}
        {members.isPending ? (
          <p className="text-sm opacity-70">Loading members...</p>
        ) : members.isError ? (
          <p className="text-sm text-error">{errorMessage(members.error)}</p>
        ) : (
          <ScrollArea label="Members table">
            <table className="table table-sm">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Email</th>
                  <th>Role</th>
                  <th>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {members.data.members.map((m) => (
                  <tr key={m.id}>
                    <td>{m.name}</td>
                    <td className="text-sm opacity-80">{m.email}</td>
                    <td>
                      {manages ? (
                        <select
                          className="select select-bordered select-sm"
                          aria-label={`Role of ${m.email}`}
                          value={m.role}
                          onChange={(e) => changeRole.mutate({ id: m.id, role: e.target.value as Role })}
                        >
                          {ROLES.map((r) => (
                            <option key={r} value={r}>
                              {ROLE_LABELS[r]}
                            </option>
                          ))}
                        </select>
                      ) : (
                        ROLE_LABELS[m.role]
                      )}
                    </td>
                    <td className="text-right">
                      {manages && (
                        <button type="button" className="btn btn-ghost btn-sm text-error" aria-label={`Remove ${m.email}`} onClick={() => remove.mutate(m.id)}>
                          <Trash2 className="h-4 w-4" aria-hidden />
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
                {members.data.invitations.map((i) => (
                  <tr key={i.id} className="opacity-70">
                    <td>
                      <span className="badge badge-ghost badge-sm">Invited</span>
                    </td>
                    <td className="text-sm">{i.email}</td>
                    <td>{ROLE_LABELS[i.role]}</td>
                    <td />
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollArea>
        )}
      </div>
    </section>
  );
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [sent, setSent] = useState<InviteResponse | null>(null);
  const link = sent && !sent.emailed ? sent.link : null;
  const invite = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/members/invitations", { email, role })).json()) as InviteResponse,
    onMutate: () => setSent(null),
    onSuccess: (data) => {
      setSent(data);
      setEmail("");
      onInvited();
    },
  });
  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      toast({ title: "Copied to clipboard", description: "Invitation link copied successfully" });
    } catch {
      toast({ title: "Could not copy", description: "Select the link and copy it by hand.", variant: "destructive" });
    }
  };
  return (
    <div className="flex flex-col gap-2">
      <form
        className="flex flex-col gap-2 sm:flex-row"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate();
        }}
      >
        <input className="input input-bordered input-sm w-full sm:max-w-xs" type="email" placeholder="colleague@example.com" aria-label="Email to invite" value={email} onChange={(e) => setEmail(e.target.value)} />
        <select className="select select-bordered select-sm" aria-label="Role for the invitation" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_LABELS[r]}
            </option>
          ))}
        </select>
        <button type="submit" className="btn btn-primary btn-sm" disabled={invite.isPending}>
          <UserPlus className="h-4 w-4" aria-hidden />
          {invite.isPending ? "Inviting..." : "Invite"}
        </button>
      </form>
      {invite.isError && (
        <p className="text-sm text-error" role="alert">
          {errorMessage(invite.error)}
        </p>
      )}
      {sent?.emailed && (
        <p className="flex items-center gap-2 rounded-box bg-success/10 p-3 text-sm" role="status">
          <MailCheck className="h-4 w-4 shrink-0 text-success" aria-hidden />
          <span>
            Invitation sent to <strong>{sent.invitation.email}</strong>. The link in the mail works once, for 7 days.
          </span>
        </p>
      )}
      {link && (
        <div className="rounded-box bg-base-200 p-3 text-sm">
          {sent && !sent.emailed && sent.message && (
            <p className="mb-2 text-error" role="alert">
              {sent.message}
            </p>
          )}
          <p className="mb-1">Send this single-use link to {sent ? <strong>{sent.invitation.email}</strong> : "the person you invited"} (valid for 7 days):</p>
          <div className="flex items-center gap-2">
            <input className="input input-bordered input-sm w-full font-mono text-xs" readOnly value={link} aria-label="Invitation link" onFocus={(e) => e.target.select()} />
            <button type="button" className="btn btn-sm" onClick={copy}>
              <Copy className="h-4 w-4" aria-hidden />
              Copy link
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
