import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { AlertTriangle, CheckCircle2, KeyRound, RefreshCw, Trash2 } from "lucide-react";
import { useEffect, useId, useState } from "react";
import { useSearchParams } from "react-router";
import {
  connectOAuthMailboxSchema,
  OAUTH_CONNECT_RESULTS,
  type OAuthConnectResult,
  type OAuthConnectStart,
  type OAuthMailboxList,
  type OAuthMailboxPollResult,
  type OAuthMailboxView,
  type OAuthProviderId,
} from "../../../src/features/mailin/oauth-contract";
import { apiRequest, errorMessage } from "../../lib/api";
import { keepInView } from "../../lib/anchor";
import { toast } from "../../lib/toast";
import { announceMailboxCheck, PollStatus } from "./MailboxPollStatus";

export const oauthMailboxesKey = ["/api/settings/oauth-mailboxes"] as const;

const isOutcome = (value: string | null): value is OAuthConnectResult => !!value && value in OAUTH_CONNECT_RESULTS;

/**
 * Settings › Report mail: mailboxes connected through Microsoft 365 or Google Workspace
 * (OAuth2), several per organization. Connecting goes to the provider's consent page and comes
 * back here with the outcome.
 */
export function OAuthMailboxesPanel({ canManage, roleKnown }: { canManage: boolean; roleKnown: boolean }) {
  const query = useQuery<OAuthMailboxList>({ queryKey: oauthMailboxesKey });
  // the outcome the provider's return left in the address bar (`?oauth_mailbox=`)
  const [params, setParams] = useSearchParams();
  const returned = params.get("oauth_mailbox");
  const [outcome, setOutcome] = useState<OAuthConnectResult | null>(isOutcome(returned) ? returned : null);
  useEffect(() => {
    // said once: a reload or a shared link does not repeat it
    if (returned === null) return;
    // back from the provider (or from signing in again): the report-mail section is what to see
    keepInView(document.getElementById("report-mail"));
    setParams(
      (current) => {
        current.delete("oauth_mailbox");
        return current;
      },
      { replace: true },
    );
  }, [returned, setParams]);
  return (
    <div className="grid gap-3">
      <div>
        <h3 className="font-semibold">Microsoft 365 and Google Workspace mailboxes</h3>
        <p className="text-sm opacity-70">
          Microsoft 365 and Google Workspace no longer accept passwords for IMAP. Connect such a mailbox through its provider's consent page instead: dmarcwarden
          reads its unread messages every few minutes and moves each to <strong>Processed</strong> — or <strong>Invalid</strong> when it holds no report.
        </p>
      </div>
      {outcome && (
        <div role="status" className={`alert alert-soft text-sm ${outcome === "connected" ? "alert-success" : "alert-warning"}`}>
          {outcome === "connected" ? <CheckCircle2 className="h-5 w-5 shrink-0" aria-hidden /> : <AlertTriangle className="h-5 w-5 shrink-0" aria-hidden />}
          <span className="flex-1">{OAUTH_CONNECT_RESULTS[outcome]}</span>
          <button type="button" className="btn btn-ghost btn-xs" onClick={() => setOutcome(null)}>
            Dismiss
          </button>
        </div>
      )}
      {query.isPending ? (
        <span className="loading loading-dots loading-sm" aria-label="Loading connected mailboxes" />
      ) : query.isError ? (
        <p className="text-sm text-error">Could not load the connected mailboxes: {errorMessage(query.error)}</p>
      ) : (
        <>
          {query.data.mailboxes.length > 0 && (
            <ul className="grid gap-2" aria-label="Connected mailboxes">
              {query.data.mailboxes.map((mailbox) => (
                <MailboxRow key={mailbox.id} mailbox={mailbox} canManage={canManage} />
              ))}
            </ul>
          )}
          {canManage && <ConnectForm providers={query.data.providers} />}
          {roleKnown && !canManage && <p className="text-sm opacity-70">Only owners and admins of the organization can connect or remove mailboxes.</p>}
        </>
      )}
    </div>
  );
}

function useConnect() {
  return useMutation({
    mutationFn: async (input: { provider: OAuthProviderId; folder: string }) => (await apiRequest("POST", "/api/settings/oauth-mailboxes/connect", input)).json() as Promise<OAuthConnectStart>,
    onSuccess: ({ redirectUrl }) => window.location.assign(redirectUrl),
    onError: (error) => toast({ title: "Could not start connecting the mailbox", description: errorMessage(error), variant: "destructive" }),
  });
}

function LastCheck({ mailbox }: { mailbox: OAuthMailboxView }) {
  if (mailbox.status === "reconnect")
    return (
      <div role="alert" className="alert alert-warning alert-soft text-sm">
        <AlertTriangle className="h-5 w-5 shrink-0" aria-hidden />
        <span>{mailbox.lastError}</span>
      </div>
    );
  return <PollStatus mailbox={mailbox} pending="Connected. The first check runs within a few minutes." />;
}

function MailboxRow({ mailbox, canManage }: { mailbox: OAuthMailboxView; canManage: boolean }) {
  const client = useQueryClient();
  const connect = useConnect();
  const replace = (next: OAuthMailboxView | null) =>
    client.setQueryData<OAuthMailboxList>(oauthMailboxesKey, (list) =>
      list ? { ...list, mailboxes: next ? list.mailboxes.map((m) => (m.id === next.id ? next : m)) : list.mailboxes.filter((m) => m.id !== mailbox.id) } : list,
    );
  const checkNow = useMutation({
    mutationFn: async () => (await apiRequest("POST", `/api/settings/oauth-mailboxes/${mailbox.id}/poll`)).json() as Promise<OAuthMailboxPollResult>,
    onSuccess: (result) => {
      if (result.mailbox) replace(result.mailbox);
      announceMailboxCheck(client, result);
    },
    onError: (error) => toast({ title: "Could not check the mailbox", description: errorMessage(error), variant: "destructive" }),
  });
  const remove = useMutation({
    mutationFn: () => apiRequest("DELETE", `/api/settings/oauth-mailboxes/${mailbox.id}`),
    onSuccess: () => {
      replace(null);
      toast({ title: "Mailbox removed", description: "dmarcwarden no longer checks it. Messages already there are left untouched." });
    },
    onError: (error) => toast({ title: "Could not remove the mailbox", description: errorMessage(error), variant: "destructive" }),
  });
  const busy = checkNow.isPending || remove.isPending || connect.isPending;
  return (
    <li className="grid gap-2 rounded-box border border-base-300 p-3" data-testid="oauth-mailbox">
      <div className="flex flex-wrap items-center gap-2">
        <span className="badge badge-outline shrink-0">{mailbox.providerLabel}</span>
        <span className="min-w-0 break-all font-medium">{mailbox.email}</span>
        <span className="text-sm opacity-60">· {mailbox.folder}</span>
        {mailbox.status === "reconnect" && <span className="badge badge-warning">Reconnect needed</span>}
      </div>
      <LastCheck mailbox={mailbox} />
      {canManage && (
        <div className="flex flex-wrap items-center gap-2">
          {mailbox.status === "reconnect" ? (
            <button type="button" className="btn btn-sm btn-primary" disabled={busy} onClick={() => connect.mutate({ provider: mailbox.provider, folder: mailbox.folder })}>
              <KeyRound className="h-4 w-4" aria-hidden />
              Reconnect
            </button>
          ) : (
            <button type="button" className="btn btn-sm btn-outline" disabled={busy} onClick={() => checkNow.mutate()}>
              {checkNow.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden /> : <RefreshCw className="h-4 w-4" aria-hidden />}
              {checkNow.isPending ? "Checking..." : "Check now"}
            </button>
          )}
          <button
            type="button"
            className="btn btn-sm btn-ghost text-error sm:ml-auto"
            disabled={busy}
            aria-label={`Remove ${mailbox.email}`}
            onClick={() => {
              if (window.confirm(`Stop fetching reports from ${mailbox.email}?`)) remove.mutate();
            }}
          >
            <Trash2 className="h-4 w-4" aria-hidden />
            Remove
          </button>
        </div>
      )}
    </li>
  );
}

function ConnectForm({ providers }: { providers: OAuthMailboxList["providers"] }) {
  const uid = useId();
  const connect = useConnect();
  const [folder, setFolder] = useState("INBOX");
  const [error, setError] = useState<string | null>(null);
  const configured = providers.filter((p) => p.configured);
  if (!configured.length)
    return (
      <p className="text-sm opacity-70">
        This server is not set up for Microsoft 365 or Google Workspace mailboxes. The administrator turns them on with{" "}
        <code className="font-mono">--microsoft-client-id</code> or <code className="font-mono">--google-client-id</code> and their secrets.
      </p>
    );
  const start = (provider: OAuthProviderId) => {
    const parsed = connectOAuthMailboxSchema.safeParse({ provider, folder });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? "Check the folder");
    setError(null);
    connect.mutate(parsed.data);
  };
  return (
    <div className="grid gap-3">
      <div className="grid gap-1.5">
        <label className="text-sm font-medium" htmlFor={`${uid}-folder`}>
          Folder or Gmail label
        </label>
        <input
          id={`${uid}-folder`}
          className="input w-full sm:w-64"
          value={folder}
          onChange={(e) => setFolder(e.target.value)}
          spellCheck={false}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${uid}-folder-error` : `${uid}-folder-hint`}
        />
        {error ? (
          <p id={`${uid}-folder-error`} className="text-sm text-error">
            {error}
          </p>
        ) : (
          <p id={`${uid}-folder-hint`} className="text-xs opacity-60">
            Where reports arrive, usually INBOX.
          </p>
        )}
      </div>
      <div className="flex flex-wrap gap-2">
        {configured.map((p) => (
          <button key={p.provider} type="button" className="btn btn-outline" disabled={connect.isPending} onClick={() => start(p.provider)}>
            {connect.isPending && connect.variables?.provider === p.provider ? <span className="loading loading-spinner loading-sm" aria-hidden /> : <KeyRound className="h-4 w-4" aria-hidden />}
            Connect {p.label}
          </button>
        ))}
      </div>
    </div>
  );
}
