import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { BellRing, ChevronDown, ChevronRight, KeyRound, Send, Trash2 } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import type { MeResponse } from "../../../src/features/auth/contract";
import { ALERT_CHANNEL_TYPES, type AlertChannelType, type AlertLimitView, type ChannelView, type DeliveryView } from "../../../src/features/alerts/contract";
import { alertLimitSchema } from "../../../src/lib/alerts/volume";
import { ApiError, apiRequest, errorMessage } from "../../lib/api";
import { getQueryFn } from "../../lib/queryClient";
import { toast } from "../../lib/toast";
import { ScrollArea } from "../../components/ScrollArea";

export const channelsKey = ["/api/alerts/channels"] as const;
const meKey = ["/api/auth/me"] as const;

const TYPE_LABEL: Record<AlertChannelType, string> = { email: "Email", slack: "Slack", teams: "Microsoft Teams", webhook: "Webhook" };
const TARGET_LABEL: Record<AlertChannelType, string> = { email: "Email addresses (comma-separated)", slack: "Slack incoming-webhook URL", teams: "Teams incoming-webhook URL", webhook: "Webhook URL (receives signed JSON)" };
const TARGET_PLACEHOLDER: Record<AlertChannelType, string> = { email: "security@example.com, it@example.com", slack: "https://hooks.slack.com/services/…", teams: "https://…webhook.office.com/…", webhook: "https://example.com/dmarc-alerts" };
const STATUS_CLASS: Record<string, string> = { delivered: "badge-success", failed: "badge-error", pending: "badge-warning", sending: "badge-info", held: "badge-ghost", summarized: "badge-ghost" };
const limitKey = ["/api/alerts/limit"] as const;

/** Settings › Alert channels: where the organisation's alerts go, a test, and each channel's delivery log. */
export function AlertChannelsSection() {
  const me = useQuery<MeResponse | null>({ queryKey: meKey, queryFn: getQueryFn({ on401: "returnNull" }) });
  const role = me.data?.currentOrg?.role;
  const canManage = role === "owner" || role === "admin";
  const channels = useQuery<{ channels: ChannelView[] }>({ queryKey: channelsKey });
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  return (
    <section className="card border border-base-300 bg-base-100" aria-labelledby="alert-channels-heading">
      <div className="card-body gap-4">
        <header>
          <h2 id="alert-channels-heading" className="card-title">
            <BellRing className="h-5 w-5 text-primary" aria-hidden />
            Alert channels
          </h2>
          <p className="text-sm opacity-70">
            Where alerts about DNS changes, failing sources and reports go. A new channel receives every alert; "Compliance alerts" and "Real-time threat monitoring" above switch the DNS and report alerts off for all channels.
          </p>
        </header>
        <AlertLimit canManage={canManage} />
        {secret && (
          <div role="alert" className="flex flex-col items-start gap-2 rounded-box border border-warning bg-warning/10 p-4">
            <p className="flex items-center gap-2 font-semibold">
              <KeyRound className="h-4 w-4" aria-hidden /> Signing secret of {secret.name}
            </p>
            <p className="text-sm">Copy it now: it is shown only this once. Your receiver checks the X-Dmarcwarden-Signature header with it.</p>
            <code className="break-all rounded bg-base-100 px-2 py-1 text-sm" data-testid="webhook-secret">
              {secret.secret}
            </code>
            <button type="button" className="btn btn-sm" onClick={() => setSecret(null)}>
              I have copied it
            </button>
          </div>
        )}
        {channels.isLoading ? (
          <span className="loading loading-spinner" aria-label="Loading alert channels" />
        ) : channels.isError ? (
          <p className="text-sm text-error">{errorMessage(channels.error)}</p>
        ) : channels.data!.channels.length === 0 ? (
          <p className="text-sm opacity-70">No alert channels yet. {canManage ? "Add one below." : "An admin can add one."}</p>
        ) : (
          <ul className="flex flex-col gap-2">
            {channels.data!.channels.map((c) => (
              <ChannelRow key={c.id} channel={c} canManage={canManage} />
            ))}
          </ul>
        )}
        {canManage && <AddChannelForm onSecret={setSecret} />}
      </div>
    </section>
  );
}

/** How many alerts each channel gets in the window before the rest become one summary; admins change it. */
function AlertLimit({ canManage }: { canManage: boolean }) {
  const client = useQueryClient();
  const id = useId();
  const limit = useQuery<AlertLimitView>({ queryKey: limitKey });
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async (perWindow: number) => (await (await apiRequest("PUT", "/api/alerts/limit", { perWindow })).json()) as AlertLimitView,
    onSuccess: (view) => {
      client.setQueryData(limitKey, view);
      setDraft(null);
      setError(null);
      toast({ title: "Alert limit saved", description: `Each channel now gets at most ${view.perWindow} alerts every ${view.windowMinutes} minutes.`, variant: "success" });
    },
    onError: (e) => {
      if (e instanceof ApiError && e.fields?.perWindow) setError(e.fields.perWindow);
      else toast({ title: "Could not save the alert limit", description: errorMessage(e), variant: "destructive" });
    },
  });
  if (typeof limit.data?.perWindow !== "number") return null;
  const { perWindow, windowMinutes, min, max } = limit.data;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = alertLimitSchema.safeParse({ perWindow: draft === null || draft.trim() === "" ? Number.NaN : Number(draft) });
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? "Enter a whole number");
    save.mutate(parsed.data.perWindow);
  };
  return (
    <div className="flex flex-wrap items-end gap-3 rounded-box bg-base-200/50 p-3">
      <p className="min-w-0 flex-1 text-sm" data-testid="alert-limit">
        At most {perWindow} alert{perWindow === 1 ? "" : "s"} per channel every {windowMinutes} minutes; more become one summary.
      </p>
      {canManage && (
        <form onSubmit={submit} noValidate className="flex flex-wrap items-end gap-2" aria-label="Alert limit">
          <div className="form-control">
            <label className="label-text mb-1 text-sm" htmlFor={`${id}-limit`}>
              Alerts per channel in {windowMinutes} minutes
            </label>
            <input
              id={`${id}-limit`}
              type="number"
              inputMode="numeric"
              min={min}
              max={max}
              className={`input input-bordered input-sm w-28 ${error ? "input-error" : ""}`}
              value={draft ?? String(perWindow)}
              onChange={(e) => setDraft(e.target.value)}
              aria-invalid={!!error}
              aria-describedby={error ? `${id}-limit-error` : undefined}
            />
          </div>
          <button type="submit" className="btn btn-sm btn-outline" disabled={save.isPending || draft === null}>
            {save.isPending ? "Saving…" : "Save limit"}
          </button>
          {error && (
            <p id={`${id}-limit-error`} className="w-full text-xs text-error">
              {error}
            </p>
          )}
        </form>
      )}
    </div>
  );
}

function ChannelRow({ channel, canManage }: { channel: ChannelView; canManage: boolean }) {
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const logKey = [`/api/alerts/channels/${channel.id}/deliveries`];
  const test = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", `/api/alerts/channels/${channel.id}/test`)).json()) as { ok: boolean; error: string | null },
    onSuccess: (r) => {
      client.invalidateQueries({ queryKey: logKey });
      if (r.ok) toast({ title: "Test alert sent", description: `${channel.name} accepted the test alert.`, variant: "success" });
      else toast({ title: "Test alert not delivered", description: r.error ?? "The channel did not accept it.", variant: "destructive" });
    },
    onError: (error) => toast({ title: "Test alert not sent", description: errorMessage(error), variant: "destructive" }),
  });
  const toggle = useMutation({
    mutationFn: async () => apiRequest("PATCH", `/api/alerts/channels/${channel.id}`, { enabled: !channel.enabled }),
    onSuccess: () => client.invalidateQueries({ queryKey: channelsKey }),
    onError: (error) => toast({ title: "Could not change the channel", description: errorMessage(error), variant: "destructive" }),
  });
  const remove = useMutation({
    mutationFn: async () => apiRequest("DELETE", `/api/alerts/channels/${channel.id}`),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: channelsKey });
      toast({ title: "Channel deleted", description: `${channel.name} will receive no more alerts.` });
    },
    onError: (error) => toast({ title: "Could not delete the channel", description: errorMessage(error), variant: "destructive" }),
  });
  return (
    <li className="rounded-box border border-base-300 p-3" data-channel={channel.id}>
      <div className="flex flex-wrap items-center gap-2">
        <div className="min-w-0 flex-1">
          <p className="flex flex-wrap items-center gap-2 font-medium">
            {channel.name}
            <span className="badge badge-outline badge-sm">{TYPE_LABEL[channel.type]}</span>
            {!channel.enabled && <span className="badge badge-ghost badge-sm">Off</span>}
            {channel.eventTypes && <span className="badge badge-ghost badge-sm">{channel.eventTypes.length} alert types</span>}
          </p>
          <p className="break-all text-xs opacity-70">{channel.target}</p>
        </div>
        {canManage && (
          <div className="flex flex-wrap gap-2">
            <label className="label cursor-pointer gap-2 text-sm">
              <input type="checkbox" className="toggle toggle-sm toggle-primary" checked={channel.enabled} onChange={() => toggle.mutate()} aria-label={`${channel.name} on`} />
            </label>
            <button type="button" className="btn btn-sm btn-outline" onClick={() => test.mutate()} disabled={test.isPending}>
              <Send className="h-4 w-4" aria-hidden />
              {test.isPending ? "Sending…" : "Send a test"}
            </button>
            <button
              type="button"
              className="btn btn-sm btn-ghost text-error"
              aria-label={`Delete ${channel.name}`}
              onClick={() => {
                if (window.confirm(`Delete the alert channel "${channel.name}"?`)) remove.mutate();
              }}
            >
              <Trash2 className="h-4 w-4" aria-hidden />
            </button>
          </div>
        )}
      </div>
      <button type="button" className="btn btn-ghost btn-xs mt-2 px-1" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? <ChevronDown className="h-3.5 w-3.5" aria-hidden /> : <ChevronRight className="h-3.5 w-3.5" aria-hidden />}
        Delivery log
      </button>
      {open && <DeliveryLog queryKey={logKey} />}
    </li>
  );
}

function DeliveryLog({ queryKey }: { queryKey: string[] }) {
  const log = useQuery<{ deliveries: DeliveryView[] }>({ queryKey, staleTime: 0 });
  if (log.isLoading) return <span className="loading loading-spinner loading-sm" aria-label="Loading the delivery log" />;
  if (log.isError) return <p className="text-sm text-error">{errorMessage(log.error)}</p>;
  const rows = log.data!.deliveries;
  if (!rows.length) return <p className="px-1 text-sm opacity-70">Nothing sent to this channel yet.</p>;
  return (
    <ScrollArea label="Sent alerts table" className="mt-1">
      <table className="table table-xs">
        <thead>
          <tr>
            <th>Alert</th>
            <th>Status</th>
            <th>Tries</th>
            <th>Last result</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((d) => {
            const last = d.log.at(-1);
            return (
              <tr key={d.id}>
                <td>
                  <span className="block">{d.eventType === "test" ? "Test alert" : d.eventType === "alerts.summary" ? "Summary of held alerts" : d.eventType}</span>
                  <span className="text-[11px] opacity-60">
                    {new Date(d.createdAt).toLocaleString()}
                    {d.domain ? ` · ${d.domain}` : ""}
                  </span>
                </td>
                <td>
                  <span className={`badge badge-sm ${STATUS_CLASS[d.status] ?? "badge-ghost"}`}>{d.status}</span>
                </td>
                <td>{d.attempts}</td>
                <td className="max-w-64 break-words text-xs">
                  {last ? (last.ok ? `OK${last.statusCode ? ` (HTTP ${last.statusCode})` : ""}` : (last.error ?? "failed")) : "—"}
                  {d.status === "pending" && d.nextAttemptAt ? <span className="block opacity-60">next try {new Date(d.nextAttemptAt).toLocaleTimeString()}</span> : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollArea>
  );
}

function AddChannelForm({ onSecret }: { onSecret: (s: { name: string; secret: string }) => void }) {
  const client = useQueryClient();
  const id = useId();
  const [type, setType] = useState<AlertChannelType>("email");
  const [name, setName] = useState("");
  const [target, setTarget] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/alerts/channels", { type, name, target })).json()) as ChannelView,
    onSuccess: (channel) => {
      client.invalidateQueries({ queryKey: channelsKey });
      setName("");
      setTarget("");
      setErrors({});
      if (channel.secret) onSecret({ name: channel.name, secret: channel.secret });
      toast({ title: "Channel added", description: `${channel.name} will receive every alert.`, variant: "success" });
    },
    onError: (error) => {
      if (error instanceof ApiError && error.fields) setErrors(error.fields);
      else toast({ title: "Could not add the channel", description: errorMessage(error), variant: "destructive" });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next: Record<string, string> = {};
    if (!name.trim()) next.name = "Enter a name";
    if (!target.trim()) next.target = "Enter the addresses or URL";
    setErrors(next);
    if (!Object.keys(next).length) create.mutate();
  };
  return (
    <form onSubmit={submit} noValidate className="grid grid-cols-1 gap-3 rounded-box bg-base-200/50 p-3 md:grid-cols-[10rem_1fr_2fr_auto] md:items-end" aria-label="Add an alert channel">
      <div className="form-control">
        <label className="label-text mb-1 text-sm" htmlFor={`${id}-type`}>
          Type
        </label>
        <select id={`${id}-type`} className="select select-bordered select-sm w-full" value={type} onChange={(e) => setType(e.target.value as AlertChannelType)}>
          {ALERT_CHANNEL_TYPES.map((t) => (
            <option key={t} value={t}>
              {TYPE_LABEL[t]}
            </option>
          ))}
        </select>
      </div>
      <div className="form-control">
        <label className="label-text mb-1 text-sm" htmlFor={`${id}-name`}>
          Name
        </label>
        <input id={`${id}-name`} className={`input input-bordered input-sm w-full ${errors.name ? "input-error" : ""}`} value={name} onChange={(e) => setName(e.target.value)} placeholder="Security team" aria-invalid={!!errors.name} />
        {errors.name && <span className="mt-1 text-xs text-error">{errors.name}</span>}
      </div>
      <div className="form-control">
        <label className="label-text mb-1 text-sm" htmlFor={`${id}-target`}>
          {TARGET_LABEL[type]}
        </label>
        <input id={`${id}-target`} className={`input input-bordered input-sm w-full ${errors.target ? "input-error" : ""}`} value={target} onChange={(e) => setTarget(e.target.value)} placeholder={TARGET_PLACEHOLDER[type]} aria-invalid={!!errors.target} />
        {errors.target && <span className="mt-1 text-xs text-error">{errors.target}</span>}
      </div>
      <button type="submit" className="btn btn-primary btn-sm" disabled={create.isPending}>
        {create.isPending ? "Adding…" : "Add channel"}
      </button>
    </form>
  );
}
