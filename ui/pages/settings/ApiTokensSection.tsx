import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, KeyRound, Trash2 } from "lucide-react";
import { useState, type FormEvent } from "react";
import type { ApiTokenView, CreatedToken } from "../../../src/features/tokens/contract";
import { apiRequest, errorMessage } from "../../lib/api";
import { isSignedIn, ROLE_LABELS, useMe, type OrgSummary } from "../../lib/auth";
import { formatRelativeTime } from "../../lib/format";
import { toast } from "../../lib/toast";

type Role = OrgSummary["role"];
const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };
const TOKENS_KEY = ["/api/tokens"] as const;
const EXPIRY_CHOICES = [
  { label: "30 days", days: 30 },
  { label: "90 days", days: 90 },
  { label: "1 year", days: 365 },
  { label: "Never", days: 0 },
];

const day = (iso: string) => new Date(iso).toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });

/** Settings → API tokens (admins and owners): create (shown once), list with last use, revoke. */
export function ApiTokensSection() {
  const me = useMe();
  const myRole = isSignedIn(me.data) ? me.data.currentOrg?.role : undefined;
  const manages = myRole === "owner" || myRole === "admin";
  const tokens = useQuery<ApiTokenView[]>({ queryKey: TOKENS_KEY, enabled: manages });
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  if (!manages || !myRole) return null;
  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-labelledby="tokens-heading">
      <div className="card-body gap-4 p-4 sm:p-6">
        <div>
          <h2 id="tokens-heading" className="text-lg font-semibold">
            API tokens
          </h2>
          <p className="text-sm opacity-70">
            Scripts and tools call the API with <code className="text-xs">Authorization: Bearer &lt;token&gt;</code>, in this organization only and with the token's role.
          </p>
        </div>
        <CreateTokenForm myRole={myRole} onCreated={setCreated} />
        {created && <NewToken {...created} onDone={() => setCreated(null)} />}
        {tokens.isPending ? (
          <p className="text-sm opacity-70">Loading tokens...</p>
        ) : tokens.isError ? (
          <p className="text-sm text-error">{errorMessage(tokens.error)}</p>
        ) : tokens.data.length === 0 ? (
          <p className="text-sm opacity-70">No API tokens yet.</p>
        ) : (
          <TokenList tokens={tokens.data} />
        )}
      </div>
    </section>
  );
}

function CreateTokenForm({ myRole, onCreated }: { myRole: Role; onCreated: (t: { name: string; token: string }) => void }) {
  const client = useQueryClient();
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [days, setDays] = useState(90);
  const create = useMutation({
    mutationFn: async () => {
      const expiresAt = days ? new Date(Date.now() + days * 86400_000).toISOString() : null;
      return (await (await apiRequest("POST", "/api/tokens", { name: name.trim(), role, expiresAt })).json()) as CreatedToken;
    },
    onSuccess: (answer) => {
      onCreated({ name: name.trim(), token: answer.token });
      setName("");
      client.invalidateQueries({ queryKey: TOKENS_KEY });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const roles = (Object.keys(RANK) as Role[]).filter((r) => RANK[r] <= RANK[myRole]).sort((a, b) => RANK[a] - RANK[b]);
  return (
    <form onSubmit={submit} className="flex flex-col gap-2" aria-label="Create an API token" noValidate>
      <div className="grid grid-cols-1 gap-2 sm:grid-cols-[1fr_auto_auto_auto] sm:items-end">
        <label className="form-control">
          <span className="label-text mb-1 text-sm">Name</span>
          <input className="input input-bordered input-sm w-full" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} placeholder="e.g. Grafana export" />
        </label>
        <label className="form-control">
          <span className="label-text mb-1 text-sm">Role</span>
          <select className="select select-bordered select-sm" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {roles.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </label>
        <label className="form-control">
          <span className="label-text mb-1 text-sm">Expires after</span>
          <select className="select select-bordered select-sm" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {EXPIRY_CHOICES.map((c) => (
              <option key={c.label} value={c.days}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="btn btn-primary btn-sm" disabled={create.isPending}>
          <KeyRound className="h-4 w-4" aria-hidden />
          {create.isPending ? "Creating..." : "Create token"}
        </button>
      </div>
      {create.isError && (
        <p className="text-sm text-error" role="alert">
          {errorMessage(create.error)}
        </p>
      )}
    </form>
  );
}

function NewToken({ name, token, onDone }: { name: string; token: string; onDone: () => void }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(token);
      toast({ title: "Token copied" });
    } catch {
      toast({ title: "Could not copy", description: "Select the token and copy it by hand.", variant: "destructive" });
    }
  };
  return (
    <div className="flex flex-col gap-2 rounded-box border border-success/40 bg-success/10 p-3 text-sm" role="region" aria-label="New API token">
      <p>
        <strong>{name}</strong>: copy the token now — it is shown only this once.
      </p>
      <div className="flex min-w-0 items-center gap-2">
        <code className="min-w-0 flex-1 break-all rounded bg-base-100 px-2 py-1 font-mono text-xs" data-testid="new-token">
          {token}
        </code>
        <button type="button" className="btn btn-ghost btn-sm btn-square" aria-label="Copy the token" onClick={copy}>
          <Copy className="h-4 w-4" aria-hidden />
        </button>
      </div>
      <div>
        <button type="button" className="btn btn-sm" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

function TokenList({ tokens }: { tokens: ApiTokenView[] }) {
  const client = useQueryClient();
  const revoke = useMutation({
    mutationFn: async (id: string) => apiRequest("DELETE", `/api/tokens/${encodeURIComponent(id)}`),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: TOKENS_KEY });
      toast({ title: "Token revoked" });
    },
    onError: (e) => toast({ title: "Could not revoke the token", description: errorMessage(e), variant: "destructive" }),
  });
  return (
    <ul className="divide-y divide-base-300 rounded-box border border-base-300" aria-label="API tokens">
      {tokens.map((t) => (
        <li key={t.id} className="flex flex-wrap items-center justify-between gap-2 p-3">
          <div className="min-w-0">
            <p className="font-medium">
              {t.name} <span className="badge badge-ghost badge-sm">{ROLE_LABELS[t.role]}</span>
              {t.expired && <span className="badge badge-error badge-sm ml-1">Expired</span>}
            </p>
            <p className="text-xs opacity-70">
              Created {day(t.createdAt)}
              {t.createdBy ? ` by ${t.createdBy.name}` : ""} · {t.expiresAt ? `${t.expired ? "expired" : "expires"} ${day(t.expiresAt)}` : "never expires"} · {t.lastUsedAt ? `last used ${formatRelativeTime(t.lastUsedAt)}` : "never used"}
            </p>
          </div>
          <button
            type="button"
            className="btn btn-ghost btn-sm text-error"
            aria-label={`Revoke ${t.name}`}
            disabled={revoke.isPending}
            onClick={() => {
              if (window.confirm(`Revoke "${t.name}"? Anything using it stops working at once.`)) revoke.mutate(t.id);
            }}
          >
            <Trash2 className="h-4 w-4" aria-hidden /> Revoke
          </button>
        </li>
      ))}
    </ul>
  );
}
