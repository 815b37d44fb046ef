import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, LogIn, ShieldCheck, Trash2 } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { SSO_ROLES, type SsoConnectionView, type SsoDomainCheckResponse, type SsoFormValues, type SsoSettingsResponse } from "../../../src/features/sso/contract";
import { DnsProofRecordView } from "../../components/DnsProofRecord";
import { ApiError, apiRequest, errorMessage } from "../../lib/api";
import { isSignedIn, ROLE_LABELS, useMe } from "../../lib/auth";
import { toast } from "../../lib/toast";
import { WrappingField } from "./WrappingField";
import { copyWithToast } from "../../lib/clipboard";

const SSO_KEY = ["/api/sso"] as const;

const formOf = (c: SsoConnectionView | null): SsoFormValues => ({
  issuer: c?.issuer ?? "",
  clientId: c?.clientId ?? "",
  clientSecret: "",
  allowedDomains: c?.allowedDomains.join(", ") ?? "",
  newUserRole: c?.newUserRole ?? "viewer",
  enabled: c?.enabled ?? true,
});


/** Settings → Single sign-on (admins and owners): the organisation's OpenID Connect identity provider. */
export function SingleSignOnSection() {
  const me = useMe();
  const role = isSignedIn(me.data) ? me.data.currentOrg?.role : undefined;
  const manages = role === "owner" || role === "admin";
  const settings = useQuery<SsoSettingsResponse>({ queryKey: SSO_KEY, enabled: manages });
  if (!manages) return null;
  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-labelledby="sso-heading">
      <div className="card-body gap-4 p-4 sm:p-6">
        <div>
          <h2 id="sso-heading" className="text-lg font-semibold">
            Single sign-on
          </h2>
          <p className="text-sm opacity-70">
            Let people sign in with your identity provider (Microsoft Entra ID, Google Workspace, Okta, Keycloak or any OpenID Connect provider). Only verified addresses in the email domains you list can
            sign in; someone new joins with the role you choose.
          </p>
        </div>
        {settings.isPending ? (
          <p className="text-sm opacity-70">Loading single sign-on...</p>
        ) : settings.isError ? (
          <p className="text-sm text-error">{errorMessage(settings.error)}</p>
        ) : (
          <SsoForm settings={settings.data} />
        )}
      </div>
    </section>
  );
}

function SsoForm({ settings }: { settings: SsoSettingsResponse }) {
  const client = useQueryClient();
  const { connection } = settings;
  const [values, setValues] = useState<SsoFormValues>(() => formOf(connection));
  useEffect(() => setValues(formOf(connection)), [connection]);
  const set = <K extends keyof SsoFormValues>(key: K, value: SsoFormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const save = useMutation({
    mutationFn: async () => (await (await apiRequest("PUT", "/api/sso", { ...values, clientSecret: values.clientSecret || undefined })).json()) as SsoConnectionView,
    onSuccess: () => {
      client.invalidateQueries({ queryKey: SSO_KEY });
      toast({ title: "Single sign-on saved" });
    },
  });
  const remove = useMutation({
    mutationFn: async () => apiRequest("DELETE", "/api/sso"),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: SSO_KEY });
      toast({ title: "Single sign-on removed" });
    },
    onError: (e) => toast({ title: "Could not remove single sign-on", description: errorMessage(e), variant: "destructive" }),
  });
  const fields = save.error instanceof ApiError ? (save.error.fields ?? {}) : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const input = (key: "issuer" | "clientId" | "clientSecret" | "allowedDomains") => `input input-bordered input-sm w-full ${fields[key] ? "input-error" : ""}`;

  return (
    <form onSubmit={submit} className="flex flex-col gap-3" aria-label="Single sign-on settings" noValidate>
      <div className="flex flex-col gap-1 rounded-box bg-base-200 p-3 text-sm">
        <span>Register this redirect URI at your identity provider (a web application with a client secret):</span>
        <div className="flex min-w-0 items-center gap-2">
          <code className="min-w-0 flex-1 break-all font-mono text-xs" data-testid="sso-redirect-uri">
            {settings.redirectUri}
          </code>
          <button type="button" className="btn btn-ghost btn-xs btn-square" aria-label="Copy the redirect URI" onClick={() => copyWithToast(settings.redirectUri, "Redirect URI")}>
            <Copy className="h-4 w-4" aria-hidden />
          </button>
        </div>
        <span className="opacity-70">
          People sign in from the sign-in page's <strong>Sign in with SSO</strong> with their work email, or with this organization's short name <code className="text-xs">{settings.organizationSlug}</code>.
        </span>
      </div>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <WrappingField label="Issuer URL" error={fields.issuer} hint="Exactly as your provider publishes it, e.g. https://login.microsoftonline.com/<tenant id>/v2.0">
          <input className={input("issuer")} value={values.issuer} maxLength={500} inputMode="url" placeholder="https://accounts.google.com" onChange={(e) => set("issuer", e.target.value)} />
        </WrappingField>
        <WrappingField label="Client ID" error={fields.clientId}>
          <input className={input("clientId")} value={values.clientId} maxLength={300} autoComplete="off" onChange={(e) => set("clientId", e.target.value)} />
        </WrappingField>
        <WrappingField label="Client secret" error={fields.clientSecret} hint={connection?.hasClientSecret ? "A secret is stored. Leave this empty to keep it." : "Stored encrypted; never shown again."}>
          <input
            className={input("clientSecret")}
            type="password"
            value={values.clientSecret}
            maxLength={2000}
            autoComplete="new-password"
            placeholder={connection?.hasClientSecret ? "••••••••" : ""}
            onChange={(e) => set("clientSecret", e.target.value)}
          />
        </WrappingField>
        <WrappingField
          label="Allowed email domains"
          error={fields.allowedDomains}
          hint="Separated by commas, e.g. example.com, example.org. Each is used once you prove it is yours with a DNS record (shown below after saving)."
        >
          <input className={input("allowedDomains")} value={values.allowedDomains} maxLength={2000} placeholder="example.com" onChange={(e) => set("allowedDomains", e.target.value)} />
        </WrappingField>
        <WrappingField label="Role for new users" error={fields.newUserRole}>
          <select className="select select-bordered select-sm w-full" value={values.newUserRole} onChange={(e) => set("newUserRole", e.target.value as SsoFormValues["newUserRole"])}>
            {SSO_ROLES.map((r) => (
              <option key={r} value={r}>
                {ROLE_LABELS[r]}
              </option>
            ))}
          </select>
        </WrappingField>
        <label className="flex cursor-pointer items-center gap-3 self-end pb-1">
          <input type="checkbox" className="toggle toggle-primary toggle-sm" checked={values.enabled} onChange={(e) => set("enabled", e.target.checked)} />
          <span className="text-sm">Single sign-on is on</span>
        </label>
      </div>
      {connection && connection.domains.length > 0 && <SsoDomainProofs connection={connection} />}
      {save.isError && (
        <p className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <button type="submit" className="btn btn-primary btn-sm" disabled={save.isPending}>
          <LogIn className="h-4 w-4" aria-hidden />
          {save.isPending ? "Checking the provider..." : "Save single sign-on"}
        </button>
        {connection && (
          <button
            type="button"
            className="btn btn-ghost btn-sm text-error"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm("Remove single sign-on? People who signed in with it keep their accounts, but must use a password or a new sign-in method.")) remove.mutate();
            }}
          >
            <Trash2 className="h-4 w-4" aria-hidden /> Remove
          </button>
        )}
      </div>
      <p className="text-xs opacity-70">
        Single sign-on does not replace two-factor sign-in here: people who turned it on still enter their code, and if this organization requires it, members without it are asked to turn it on first.
      </p>
    </form>
  );
}

const DOMAIN_BADGE = {
  proved: { label: "Proved", className: "badge-success" },
  pending: { label: "Pending", className: "badge-warning" },
} as const;

/** Each allowed domain's proof: proved, or pending with the TXT record to publish; "Check now" asks DNS for the pending ones. */
function SsoDomainProofs({ connection }: { connection: SsoConnectionView }) {
  const client = useQueryClient();
  const [messages, setMessages] = useState<Record<string, string>>({});
  const check = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/sso/domains/check")).json()) as SsoDomainCheckResponse,
    onSuccess: (r) => {
      setMessages(Object.fromEntries(r.results.map((x) => [x.domain, x.message])));
      client.setQueryData<SsoSettingsResponse>(SSO_KEY, (old) => (old ? { ...old, connection: r.connection } : old));
      const proved = r.results.filter((x) => x.status === "proved").map((x) => x.domain);
      if (proved.length) toast({ title: "Email domains proved", description: `${proved.join(", ")} can now sign in with single sign-on.` });
      else toast({ title: "No domain proved", description: "Publish the TXT records shown, then check again (DNS changes can take a few minutes).", variant: "destructive" });
    },
    onError: (e) => toast({ title: "Could not check the email domains", description: errorMessage(e), variant: "destructive" }),
  });
  const pending = connection.domains.filter((d) => d.status === "pending");
  return (
    <div className="flex min-w-0 flex-col gap-2 rounded-box bg-base-200 p-3 text-sm" data-testid="sso-domains" aria-live="polite">
      <p>
        {pending.length
          ? "People can sign in only from proved domains. For each pending domain, publish its TXT record at your DNS provider (it proves the domain is yours), then check."
          : "Every allowed domain is proved. Keep the TXT records published."}
      </p>
      <ul className="flex flex-col gap-3">
        {connection.domains.map((d) => (
          <li key={d.domain} className="flex min-w-0 flex-col gap-1" data-testid={`sso-domain-${d.domain}`}>
            <div className="flex items-center gap-2">
              <span className="font-medium break-all">{d.domain}</span>
              <span className={`badge badge-sm ${DOMAIN_BADGE[d.status].className}`} data-testid="sso-domain-status">
                {DOMAIN_BADGE[d.status].label}
              </span>
            </div>
            {d.status === "pending" && <DnsProofRecordView record={d.record} testId={`sso-proof-${d.domain}`} />}
            {d.status === "pending" && messages[d.domain] && <p className="break-words text-xs text-error">{messages[d.domain]}</p>}
          </li>
        ))}
      </ul>
      {pending.length > 0 && (
        <div>
          <button type="button" className="btn btn-outline btn-sm" disabled={check.isPending} onClick={() => check.mutate()}>
            <ShieldCheck className="h-4 w-4" aria-hidden />
            {check.isPending ? "Checking..." : "Check now"}
          </button>
        </div>
      )}
    </div>
  );
}
