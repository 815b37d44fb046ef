import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Palette, ShieldCheck, Trash2, Upload } from "lucide-react";
import { useEffect, useState, type FormEvent } from "react";
import { CopyButton } from "../../components/CopyButton";
import { DnsProofRecordView, type DnsProofRecord } from "../../components/DnsProofRecord";
import { ApiError, apiRequest, errorMessage, throwIfResNotOk } from "../../lib/api";
import { isSignedIn, useMe } from "../../lib/auth";
import { formatRelativeTime } from "../../lib/format";
import { toast } from "../../lib/toast";
import { WrappingField } from "./WrappingField";

interface BrandingView {
  productName: string;
  primaryColor: string | null;
  supportEmail: string | null;
  logoUrl: string | null;
  source: "own" | "parent" | "default";
  own: { productName: string; primaryColor: string | null; supportEmail: string | null; logoUrl: string | null } | null;
  customHostname: string | null;
  customHostnameStatus: HostnameStatus | null;
  customHostnameCheckedAt: string | null;
  customHostnameRecord: string | null;
  customHostnameProof: DnsProofRecord | null;
  customHostnameMessage: string | null;
  canEdit: boolean;
  planAllows: boolean;
  isClient: boolean;
}

type HostnameStatus = "pending" | "verified" | "failed";
interface HostnameVerification {
  customHostname: string;
  status: HostnameStatus;
  checkedAt: string | null;
  message: string;
}

const BRANDING_KEY = ["/api/branding"];
const STATUS_BADGE: Record<HostnameStatus, { label: string; className: string }> = {
  verified: { label: "Verified", className: "badge-success" },
  pending: { label: "Pending", className: "badge-warning" },
  failed: { label: "Failed", className: "badge-error" },
};
const LOGO_MAX_KB = 256;

/** Settings → White-label (admins and owners of an MSP or stand-alone organisation): name, colour, support email and logo its clients see. */
export function BrandingSection() {
  const me = useMe();
  const current = isSignedIn(me.data) ? me.data.currentOrg : null;
  const manages = (current?.role === "owner" || current?.role === "admin") && !current?.parentId;
  const branding = useQuery<BrandingView>({ queryKey: BRANDING_KEY, enabled: manages });
  if (!manages || !current) return null;
  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-labelledby="branding-heading">
      <div className="card-body gap-4 p-4 sm:p-6">
        <div>
          <h2 id="branding-heading" className="text-lg font-semibold">
            White-label
          </h2>
          <p className="text-sm opacity-70">Your product name, logo, color and support address, shown to your client organizations in the app, on your sign-in link and in alert and digest mail.</p>
        </div>
        {branding.isPending ? (
          <p className="text-sm opacity-70">Loading branding...</p>
        ) : branding.isError ? (
          <p className="text-sm text-error">{errorMessage(branding.error)}</p>
        ) : !branding.data.planAllows ? (
          <p className="rounded-box bg-base-200 px-3 py-2 text-sm">White-label is part of the Scale plan. Upgrade in Billing to set your own name, logo and color.</p>
        ) : (
          <BrandingForm branding={branding.data} slug={current.slug} />
        )}
      </div>
    </section>
  );
}

function formOf(b: BrandingView) {
  // the stored name reads back as the default when none is set
  return {
    productName: b.own && b.own.productName !== "dmarcwarden" ? b.own.productName : "",
    primaryColor: b.own?.primaryColor ?? "",
    supportEmail: b.own?.supportEmail ?? "",
    customHostname: b.customHostname ?? "",
  };
}

function BrandingForm({ branding, slug }: { branding: BrandingView; slug: string }) {
  const client = useQueryClient();
  const [values, setValues] = useState(() => formOf(branding));
  useEffect(() => setValues(formOf(branding)), [branding]);
  const set = (key: keyof typeof values, value: string) => setValues((v) => ({ ...v, [key]: value }));
  const done = (b: BrandingView, title: string) => {
    client.setQueryData(BRANDING_KEY, b);
    toast({ title });
  };
  const save = useMutation({
    mutationFn: async () => (await (await apiRequest("PUT", "/api/branding", values)).json()) as BrandingView,
    onSuccess: (b) => done(b, "Branding saved"),
  });
  const upload = useMutation({
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append("logo", file);
      const res = await fetch("/api/branding/logo", { method: "PUT", body: form, credentials: "include" });
      await throwIfResNotOk(res);
      return (await res.json()) as BrandingView;
    },
    onSuccess: (b) => done(b, "Logo uploaded"),
    onError: (e) => toast({ title: "Could not upload the logo", description: errorMessage(e), variant: "destructive" }),
  });
  const removeLogo = useMutation({
    mutationFn: async () => (await (await apiRequest("DELETE", "/api/branding/logo")).json()) as BrandingView,
    onSuccess: (b) => done(b, "Logo removed"),
  });
  const fields = save.error instanceof ApiError ? (save.error.fields ?? {}) : {};
  const input = (key: string) => `input input-bordered input-sm w-full ${fields[key] ? "input-error" : ""}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  // on the MSP's own verified hostname the sign-in page is branded without ?brand=
  const link = branding.customHostname && branding.customHostnameStatus === "verified" ? `https://${branding.customHostname}/login` : `${window.location.origin}/login?brand=${encodeURIComponent(slug)}`;
  const logoUrl = branding.own?.logoUrl ?? null;
  return (
    <form onSubmit={submit} className="flex flex-col gap-3" aria-label="White-label settings" noValidate>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
        <WrappingField label="Product name" error={fields.productName} hint="Empty: dmarcwarden">
          <input className={input("productName")} value={values.productName} maxLength={60} placeholder="dmarcwarden" onChange={(e) => set("productName", e.target.value)} />
        </WrappingField>
        <WrappingField label="Primary color" error={fields.primaryColor} hint="A hex color, e.g. #2563eb; empty: the theme's">
          <div className="flex gap-2">
            <input
              type="color"
              aria-label="Pick the primary color"
              className="h-8 w-10 shrink-0 cursor-pointer rounded border border-base-300 bg-base-100"
              value={/^#[0-9a-f]{6}$/i.test(values.primaryColor) ? values.primaryColor : "#2563eb"}
              onChange={(e) => set("primaryColor", e.target.value)}
            />
            <input className={input("primaryColor")} value={values.primaryColor} maxLength={7} placeholder="#2563eb" onChange={(e) => set("primaryColor", e.target.value)} />
          </div>
        </WrappingField>
        <WrappingField label="Support email" error={fields.supportEmail} hint="Shown in mail to your clients">
          <input className={input("supportEmail")} type="email" value={values.supportEmail} maxLength={254} placeholder="support@example.com" onChange={(e) => set("supportEmail", e.target.value)} />
        </WrappingField>
      </div>
      <div className="grid grid-cols-1 gap-3 md:grid-cols-2">
        <WrappingField label="Custom hostname" error={fields.customHostname} hint="Optional. Point it at this server with a CNAME record, publish the TXT record shown to prove it is yours, then verify it; your reverse proxy serves it over HTTPS. Once verified, your clients' sign-in page and mail links use it.">
          <input
            className={input("customHostname")}
            value={values.customHostname}
            maxLength={253}
            placeholder="dmarc.your-company.com"
            spellCheck={false}
            autoCapitalize="none"
            onChange={(e) => set("customHostname", e.target.value)}
          />
        </WrappingField>
        {branding.customHostname && <HostnameStatusPanel branding={branding} />}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <span className="text-sm font-medium">Logo</span>
        {logoUrl ? <img src={logoUrl} alt="Current logo" className="h-10 w-10 rounded border border-base-300 object-contain" /> : <span className="text-sm opacity-60">No logo</span>}
        <label className="btn btn-ghost btn-sm">
          <Upload className="h-4 w-4" aria-hidden />
          {upload.isPending ? "Uploading..." : "Upload logo"}
          <input
            type="file"
            accept="image/png,image/jpeg"
            className="sr-only"
            aria-label="Logo file"
            onChange={(e) => {
              const file = e.target.files?.[0];
              e.target.value = "";
              if (!file) return;
              if (file.size > LOGO_MAX_KB * 1024) return toast({ title: "Could not upload the logo", description: `The logo must be at most ${LOGO_MAX_KB} KB.`, variant: "destructive" });
              upload.mutate(file);
            }}
          />
        </label>
        {logoUrl && (
          <button type="button" className="btn btn-ghost btn-sm text-error" disabled={removeLogo.isPending} onClick={() => removeLogo.mutate()}>
            <Trash2 className="h-4 w-4" aria-hidden /> Remove logo
          </button>
        )}
        <span className="text-xs opacity-60">PNG or JPEG, at most {LOGO_MAX_KB} KB</span>
      </div>
      <div className="flex flex-col gap-1 rounded-box bg-base-200 p-3 text-sm">
        <span>Your clients' sign-in link:</span>
        <code className="break-all font-mono text-xs" data-testid="branding-login-link">
          {link}
        </code>
      </div>
      {save.isError && (
        <p className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
          {errorMessage(save.error)}
        </p>
      )}
      <div>
        <button type="submit" className="btn btn-primary btn-sm" disabled={save.isPending}>
          <Palette className="h-4 w-4" aria-hidden />
          {save.isPending ? "Saving..." : "Save branding"}
        </button>
      </div>
    </form>
  );
}

/** The saved hostname's verification: status badge, the DNS records to publish (copyable: the CNAME and the TXT proof) and Verify. */
function HostnameStatusPanel({ branding }: { branding: BrandingView }) {
  const client = useQueryClient();
  const [result, setResult] = useState<HostnameVerification | null>(null);
  // a check of another name (before a rename) says nothing about this one
  const last = result?.customHostname === branding.customHostname ? result : null;
  const verify = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/branding/hostname/verify")).json()) as HostnameVerification,
    onSuccess: (r) => {
      setResult(r);
      void client.invalidateQueries({ queryKey: BRANDING_KEY });
      if (r.status === "verified") toast({ title: "Hostname verified", description: `${r.customHostname} now brands your clients' sign-in page and mail links.` });
      else toast({ title: "Hostname not verified", description: "Publish the DNS records shown, then verify again.", variant: "destructive" });
    },
    onError: (e) => toast({ title: "Could not verify the hostname", description: errorMessage(e), variant: "destructive" }),
  });
  const status = last?.status ?? branding.customHostnameStatus ?? "pending";
  const checkedAt = last?.checkedAt ?? branding.customHostnameCheckedAt;
  const message = last?.message ?? branding.customHostnameMessage;
  const badge = STATUS_BADGE[status];
  const record = branding.customHostnameRecord;
  return (
    <div className="flex min-w-0 flex-col gap-2 rounded-box bg-base-200 p-3 text-sm" data-testid="hostname-verification" aria-live="polite">
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium break-all">{branding.customHostname}</span>
        <span className={`badge badge-sm ${badge.className}`} data-testid="hostname-status">
          {badge.label}
        </span>
        {checkedAt && <span className="text-xs opacity-60">Checked {formatRelativeTime(checkedAt).toLowerCase()}</span>}
      </div>
      {record && (
        <div className="flex min-w-0 items-center gap-2">
          <code className="min-w-0 flex-1 rounded bg-base-100 px-2 py-1 font-mono text-xs wrap-anywhere" data-testid="hostname-record">
            {record}
          </code>
          <CopyButton value={record} what="DNS record" />
        </div>
      )}
      {branding.customHostnameProof && (
        <div className="flex min-w-0 flex-col gap-1">
          <p className="text-xs opacity-70">Also publish this TXT record: it proves the hostname is yours, and no other organization can use the hostname while it is published.</p>
          <DnsProofRecordView record={branding.customHostnameProof} testId="hostname-proof" />
        </div>
      )}
      {message && (
        <p className={`break-words text-xs ${status === "failed" ? "text-error" : "opacity-70"}`} data-testid="hostname-message">
          {message}
        </p>
      )}
      <div>
        <button type="button" className="btn btn-outline btn-sm" disabled={verify.isPending} onClick={() => verify.mutate()}>
          <ShieldCheck className="h-4 w-4" aria-hidden />
          {verify.isPending ? "Verifying..." : status === "verified" ? "Verify again" : "Verify"}
        </button>
      </div>
    </div>
  );
}
