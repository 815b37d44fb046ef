import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { AlertTriangle, Check, CheckCircle2, Copy, Inbox, Mail, PlugZap, RefreshCw, Trash2 } from "lucide-react";
import { useId, useState, type ComponentProps } from "react";
import { useForm } from "react-hook-form";
import { FormField } from "../../components/FormField";
import { DomainReportPath } from "../../components/ReportPath";
import { useDomains } from "../domains/api";
import type { MeResponse } from "../../../src/features/auth/contract";
import { mailboxInputSchema, type MailboxInput, type MailboxPollResult, type MailboxTestResult, type MailboxView, type ReportAddress } from "../../../src/features/mailin/contract";
import { ApiError, apiRequest, errorMessage } from "../../lib/api";
import { getQueryFn } from "../../lib/queryClient";
import { toast } from "../../lib/toast";
import { announceMailboxCheck, PollStatus } from "./MailboxPollStatus";
import { OAuthMailboxesPanel } from "./OAuthMailboxesPanel";

export const reportAddressKey = ["/api/settings/report-address"] as const;
export const mailboxKey = ["/api/settings/mailbox"] as const;
const meKey = ["/api/auth/me"] as const;

const EMPTY_MAILBOX: MailboxInput = { host: "", port: 993, tls: true, username: "", password: "", folder: "INBOX" };

/**
 * Settings › Report mail: the organisation's own report address (when this server receives
 * mail itself) and the IMAP mailbox dmarcwarden polls for reports.
 */
export function ReportMailboxSection() {
  const me = useQuery<MeResponse | null>({ queryKey: meKey, queryFn: getQueryFn({ on401: "returnNull" }) });
  const role = me.data?.currentOrg?.role;
  const canManage = role === "owner" || role === "admin";
  return (
    <section id="report-mail" className="card scroll-mt-24 border border-base-300 bg-base-100" aria-labelledby="report-mail-heading">
      <div className="card-body gap-6">
        <header>
          <h2 id="report-mail-heading" className="card-title">
            <Mail className="h-5 w-5 text-primary" aria-hidden />
            Report mail
          </h2>
          <p className="text-sm opacity-70">Where mailbox providers send your DMARC reports, and how dmarcwarden collects them.</p>
        </header>
        <ReportAddressPanel />
        <div className="divider my-0" />
        <MailboxPanel canManage={canManage} roleKnown={!!role} />
        <div className="divider my-0" />
        <OAuthMailboxesPanel canManage={canManage} roleKnown={!!role} />
      </div>
    </section>
  );
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      toast({ title: "Could not copy", description: "Select the text and copy it by hand.", variant: "destructive" });
    }
  };
  return (
    <button type="button" className="btn btn-sm btn-outline shrink-0" onClick={copy} aria-label={label}>
      {copied ? <Check className="h-4 w-4" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />}
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

function exampleRecord(address: { rua: string; ruf: string }) {
  return `v=DMARC1; p=none; rua=${address.rua}; ruf=${address.ruf}; fo=1`;
}

function ReportAddressPanel() {
  const query = useQuery<ReportAddress>({ queryKey: reportAddressKey });
  return (
    <div className="grid gap-3">
      <h3 className="font-semibold">Your report address</h3>
      {query.isPending ? (
        <span className="loading loading-dots loading-sm" aria-label="Loading report address" />
      ) : query.isError ? (
        <p className="text-sm text-error">Could not load the report address: {errorMessage(query.error)}</p>
      ) : query.data.address ? (
        <>
          <div className="flex flex-wrap items-center gap-2 sm:flex-nowrap">
            <code className="min-w-0 flex-1 break-all rounded-box bg-base-200 px-3 py-2 font-mono text-sm" data-testid="report-address">
              {query.data.address}
            </code>
            <CopyButton text={query.data.address} label="Copy report address" />
          </div>
          <p className="text-sm opacity-80">
            Publish this as <code className="break-all font-mono">rua=mailto:{query.data.address}</code> in your DMARC record (and as{" "}
            <code className="font-mono">ruf=</code> for failure reports). Reports sent there appear under Reports within minutes.
          </p>
          <div className="flex flex-wrap items-center gap-2 sm:flex-nowrap">
            <code className="min-w-0 flex-1 break-all rounded-box bg-base-200 px-3 py-2 font-mono text-xs opacity-80">{exampleRecord(query.data)}</code>
            <CopyButton text={exampleRecord(query.data)} label="Copy example DMARC record" />
          </div>
          <p className="text-xs opacity-60">
            Providers send reports to an address at another domain only when that domain allows it (RFC 7489 §7.1): the operator of this server publishes{" "}
            <code className="break-all font-mono">*._report._dmarc.{query.data.address.split("@")[1]} TXT "v=DMARC1"</code> once for everyone.
          </p>
        </>
      ) : (
        <ReceiverOff />
      )}
    </div>
  );
}

/** Without the SMTP receiver: the choice between a mailbox and uploading, for the organisation's first domain when it has one. */
function ReceiverOff() {
  const domains = useDomains();
  const first = domains.data?.[0]?.name;
  if (first) return <DomainReportPath domain={first} mailboxBelow />;
  return (
    <div role="status" className="alert alert-info alert-soft text-sm">
      <Inbox className="h-5 w-5 shrink-0" aria-hidden />
      <span>
        This server does not receive report mail itself: its SMTP receiver is off. Publish <code className="font-mono">rua=mailto:dmarc@</code> your domain, then
        connect that mailbox below or upload its reports on DMARC Reports — or ask your administrator to start dmarcwarden with{" "}
        <code className="font-mono">--smtp-port</code> and <code className="font-mono">--smtp-domain</code>.
      </span>
    </div>
  );
}

function MailboxPanel({ canManage, roleKnown }: { canManage: boolean; roleKnown: boolean }) {
  const query = useQuery<{ mailbox: MailboxView | null }>({ queryKey: mailboxKey });
  return (
    <div className="grid gap-3">
      <div>
        <h3 className="font-semibold">Report mailbox (IMAP)</h3>
        <p className="text-sm opacity-70">
          If your reports already arrive in a mailbox you own, dmarcwarden can fetch them every few minutes. Each unread message is read, then moved to a
          folder named <strong>Processed</strong> — or <strong>Invalid</strong> when it holds no report.
        </p>
      </div>
      {query.isPending ? (
        <span className="loading loading-dots loading-sm" aria-label="Loading mailbox settings" />
      ) : query.isError ? (
        <p className="text-sm text-error">Could not load the mailbox settings: {errorMessage(query.error)}</p>
      ) : (
        <>
          {query.data.mailbox && <PollStatus mailbox={query.data.mailbox} pending="Saved. The first check runs within a few minutes." />}
          <MailboxForm key={query.data.mailbox ? "saved" : "new"} mailbox={query.data.mailbox} canManage={canManage} />
          {roleKnown && !canManage && <p className="text-sm opacity-70">Only owners and admins of the organization can change the mailbox.</p>}
        </>
      )}
    </div>
  );
}

function MailboxForm({ mailbox, canManage }: { mailbox: MailboxView | null; canManage: boolean }) {
  const uid = useId();
  const client = useQueryClient();
  const [testResult, setTestResult] = useState<MailboxTestResult | null>(null);
  const form = useForm<MailboxInput>({
    resolver: zodResolver(mailboxInputSchema),
    defaultValues: mailbox ? { host: mailbox.host, port: mailbox.port, tls: mailbox.tls, username: mailbox.username, password: "", folder: mailbox.folder } : EMPTY_MAILBOX,
  });
  const {
    register,
    handleSubmit,
    setValue,
    getValues,
    formState: { errors, isDirty },
  } = form;

  const showFieldErrors = (error: unknown) => {
    if (error instanceof ApiError && error.fields) {
      for (const [name, message] of Object.entries(error.fields)) if (name in EMPTY_MAILBOX) form.setError(name as keyof MailboxInput, { message });
    }
  };
  const save = useMutation({
    mutationFn: async (values: MailboxInput) => (await apiRequest("PUT", "/api/settings/mailbox", values)).json() as Promise<{ mailbox: MailboxView }>,
    onSuccess: (data, values) => {
      form.reset({ ...values, password: "" });
      client.setQueryData(mailboxKey, data);
      toast({ title: "Mailbox saved", description: "dmarcwarden will check it for reports every few minutes.", variant: "success" });
    },
    onError: (error) => {
      showFieldErrors(error);
      toast({ title: "Could not save the mailbox", description: errorMessage(error), variant: "destructive" });
    },
  });
  const test = useMutation({
    mutationFn: async (values: MailboxInput) => (await apiRequest("POST", "/api/settings/mailbox/test", values)).json() as Promise<MailboxTestResult>,
    onMutate: () => setTestResult(null),
    onSuccess: setTestResult,
    onError: (error) => {
      showFieldErrors(error);
      setTestResult({ ok: false, error: errorMessage(error) });
    },
  });
  const checkNow = useMutation({
    mutationFn: async () => (await apiRequest("POST", "/api/settings/mailbox/poll")).json() as Promise<MailboxPollResult>,
    onSuccess: (result) => {
      client.setQueryData(mailboxKey, { mailbox: result.mailbox });
      announceMailboxCheck(client, result);
    },
    onError: (error) => toast({ title: "Could not check the mailbox", description: errorMessage(error), variant: "destructive" }),
  });
  const remove = useMutation({
    mutationFn: () => apiRequest("DELETE", "/api/settings/mailbox"),
    onSuccess: () => {
      client.setQueryData(mailboxKey, { mailbox: null });
      toast({ title: "Mailbox removed", description: "dmarcwarden no longer checks it. Messages already there are left untouched." });
    },
    onError: (error) => toast({ title: "Could not remove the mailbox", description: errorMessage(error), variant: "destructive" }),
  });

  const id = (name: string) => `${uid}-${name}`;
  const field = (name: keyof MailboxInput) => ({
    id: id(name),
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": errors[name] ? id(`${name}-error`) : undefined,
  });
  const busy = save.isPending || test.isPending || remove.isPending || checkNow.isPending;
  const onTlsChange = (tls: boolean) => {
    // follow the usual port when the user has not chosen another one
    const port = getValues("port");
    if (port === 993 || port === 143) setValue("port", tls ? 993 : 143, { shouldDirty: true });
  };

  return (
    <form noValidate aria-label="Report mailbox" onSubmit={handleSubmit((values) => save.mutate(values))} className="grid gap-4">
      <fieldset disabled={!canManage || busy} className="grid gap-4">
        <div className="grid gap-4 sm:grid-cols-[1fr_8rem]">
          <Field label="IMAP server" htmlFor={id("host")} error={errors.host} errorId={id("host-error")}>
            <input {...register("host")} {...field("host")} className="input w-full" placeholder="imap.example.com" autoComplete="off" spellCheck={false} />
          </Field>
          <Field label="Port" htmlFor={id("port")} error={errors.port} errorId={id("port-error")}>
            <input {...register("port", { valueAsNumber: true })} {...field("port")} type="number" min={1} max={65535} className="input w-full" />
          </Field>
        </div>
        <label className="flex cursor-pointer items-center gap-3 text-sm">
          <input type="checkbox" className="toggle toggle-primary toggle-sm" {...register("tls", { onChange: (e) => onTlsChange(e.target.checked) })} />
          <span>
            Use TLS (IMAPS) <span className="opacity-60">— off means plain IMAP, upgraded with STARTTLS when the server offers it</span>
          </span>
        </label>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label="User name" htmlFor={id("username")} error={errors.username} errorId={id("username-error")}>
            <input {...register("username")} {...field("username")} className="input w-full" placeholder="dmarc@example.com" autoComplete="off" spellCheck={false} />
          </Field>
          <Field
            label="Password"
            htmlFor={id("password")}
            error={errors.password}
            errorId={id("password-error")}
            hint={mailbox?.hasPassword ? "Saved (stored encrypted). Leave blank to keep it." : "Stored encrypted; never shown again."}
          >
            <input
              {...register("password")}
              {...field("password")}
              type="password"
              className="input w-full"
              autoComplete="new-password"
              placeholder={mailbox?.hasPassword ? "••••••••" : ""}
            />
          </Field>
        </div>
        <Field label="Folder" htmlFor={id("folder")} error={errors.folder} errorId={id("folder-error")} hint="The folder reports arrive in, usually INBOX.">
          <input {...register("folder")} {...field("folder")} className="input w-full sm:w-64" placeholder="INBOX" spellCheck={false} />
        </Field>
      </fieldset>

      {testResult && (
        <div role="status" className={`alert alert-soft text-sm ${testResult.ok ? "alert-success" : "alert-error"}`}>
          {testResult.ok ? <CheckCircle2 className="h-5 w-5 shrink-0" aria-hidden /> : <AlertTriangle className="h-5 w-5 shrink-0" aria-hidden />}
          <span>
            {testResult.ok
              ? `Connected. ${testResult.folder} holds ${testResult.messages} message${testResult.messages === 1 ? "" : "s"}, ${testResult.unseen} unread.`
              : `Connection failed: ${testResult.error}`}
          </span>
        </div>
      )}

      {canManage && (
        <div className="flex flex-wrap items-center gap-2">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {save.isPending && <span className="loading loading-spinner loading-sm" aria-hidden />}
            {save.isPending ? "Saving..." : "Save mailbox"}
          </button>
          <button type="button" className="btn btn-outline" disabled={busy} onClick={handleSubmit((values) => test.mutate(values))}>
            {test.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden /> : <PlugZap className="h-4 w-4" aria-hidden />}
            {test.isPending ? "Testing..." : "Test connection"}
          </button>
          {mailbox && (
            <button type="button" className="btn btn-outline" disabled={busy || isDirty} title={isDirty ? "Save your changes first" : undefined} onClick={() => checkNow.mutate()}>
              {checkNow.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden /> : <RefreshCw className="h-4 w-4" aria-hidden />}
              {checkNow.isPending ? "Checking..." : "Check now"}
            </button>
          )}
          {mailbox && (
            <button
              type="button"
              className="btn btn-ghost text-error sm:ml-auto"
              disabled={busy}
              onClick={() => {
                if (window.confirm("Stop fetching reports from this mailbox?")) remove.mutate();
              }}
            >
              <Trash2 className="h-4 w-4" aria-hidden />
              Remove mailbox
            </button>
          )}
          {isDirty && mailbox && <span className="text-xs opacity-60">Unsaved changes</span>}
        </div>
      )}
    </form>
  );
}

function Field(props: Omit<ComponentProps<typeof FormField>, "className">) {
  return <FormField className="grid content-start gap-1.5" {...props} />;
}
