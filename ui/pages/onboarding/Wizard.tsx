import { useQuery } from "@tanstack/react-query";
import { ArrowLeft, ArrowRight, Check, CheckCircle2, Clock, Copy, Gauge, LifeBuoy, Rocket, type LucideIcon } from "lucide-react";
import { useEffect, useId, useRef, useState, type ReactNode } from "react";
import { Link } from "react-router";
import { BrandLink } from "../../components/SiteHeader";
import { Tooltip } from "../../components/TooltipProvider";
import type { DomainView } from "../../../src/features/domains/contract";
import { isSignedIn, useMe } from "../../lib/auth";
import { dmarcRecord, recordDomain, spfRecord, type WizardKind } from "./records";
import { ReportPathView, startingDmarcRecord, useReportPath } from "../../components/ReportPath";
import { useCopy } from "../../components/CopyButton";
import { saveWizardDetails } from "../../lib/wizard-handoff";
import { ScrollArea } from "../../components/ScrollArea";

/** SPEC §9: the wizard has 4 steps. */
export const WIZARD_STEPS = 4;

export interface WizardDetails {
  name: string;
  domain: string;
  email: string;
}

export interface WizardContext {
  details: WizardDetails;
  /** the entered domain, or the sample domain while none is entered */
  domain: string;
}

export interface WizardConfig {
  kind: WizardKind;
  heading: string;
  intro: string;
  icon: LucideIcon;
  banner: ReactNode;
  /** step 1's wording */
  details: {
    title: string;
    description: string;
    nameLabel: string;
    namePlaceholder: string;
    domainLabel: string;
    emailLabel: string;
    emailPlaceholder: string;
  };
  /** the content of steps 2-4 (built from SpfStep, DkimStep and DmarcStep) */
  renderStep: (step: 2 | 3 | 4, context: WizardContext) => ReactNode;
  /** buttons in the help card; they do nothing yet (SPEC: inert) */
  helpButtons: string[];
}

/** Titles of steps 1-4, shown in the progress bar and as each step's heading: step 1 is the wizard's own details title. */
export function wizardStepTitles(config: WizardConfig): [string, string, string, string] {
  return [config.details.title, "Configure SPF Record", "Enable DKIM Authentication", "Set Up DMARC Policy"];
}

/** SPEC §4/§5: Next at step 1 needs name, domain and email filled in (no format check). */
export function detailsComplete(details: WizardDetails): boolean {
  return [details.name, details.domain, details.email].every((v) => v.trim() !== "");
}

/** The step engine shared by the three setup wizards. */
export function Wizard({ config }: { config: WizardConfig }) {
  const [step, setStep] = useState(1);
  const [details, setDetails] = useState<WizardDetails>({ name: "", domain: "", email: "" });
  const headingRef = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  const uid = useId();
  const Icon = config.icon;
  const context: WizardContext = { details, domain: recordDomain(config.kind, details.domain) };
  const canGoNext = step > 1 || detailsComplete(details);
  const stepTitles = wizardStepTitles(config);

  // After a step change, move focus to the new step's heading for keyboard and screen-reader users.
  useEffect(() => {
    if (moved.current) headingRef.current?.focus();
    moved.current = true;
  }, [step]);

  const field = (key: keyof WizardDetails, label: string, placeholder: string, type = "text", autoComplete?: string) => (
    <div className="grid gap-1.5">
      <label htmlFor={`${uid}-${key}`} className="text-sm font-medium">
        {label} <span className="text-error" aria-hidden>*</span>
      </label>
      <input
        id={`${uid}-${key}`}
        type={type}
        className="input w-full"
        value={details[key]}
        placeholder={placeholder}
        autoComplete={autoComplete}
        required
        maxLength={254}
        onChange={(e) => setDetails((d) => ({ ...d, [key]: e.target.value }))}
      />
    </div>
  );

  return (
    <div className="min-h-screen bg-base-200">
      <header className="sticky top-0 z-30 border-b border-base-300 bg-base-100/90 backdrop-blur">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-2 px-4 sm:px-6">
          <BrandLink />
          <Link to="/demo" className="btn btn-ghost btn-sm">
            <ArrowLeft className="h-4 w-4" aria-hidden /> Back to Demo
          </Link>
        </div>
      </header>

      <main className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-12">
        <div className="mb-6 flex items-start gap-4">
          <span className="hidden h-14 w-14 shrink-0 items-center justify-center rounded-box bg-primary/10 text-primary sm:flex">
            <Icon className="h-7 w-7" aria-hidden />
          </span>
          <div>
            <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{config.heading}</h1>
            <p className="mt-1 opacity-70">{config.intro}</p>
          </div>
        </div>

        {config.banner}

        <ol className="steps steps-horizontal my-8 w-full text-xs sm:text-sm" aria-label="Setup progress">
          {stepTitles.map((title, i) => (
            <li key={title} className={`step ${i + 1 <= step ? "step-primary" : ""}`} aria-current={i + 1 === step ? "step" : undefined}>
              <span className="hidden sm:inline">{title}</span>
              <span className="sm:hidden">Step {i + 1}</span>
            </li>
          ))}
        </ol>

        <div className="grid gap-6 lg:grid-cols-[1fr_18rem]">
          <section className="card border border-base-300 bg-base-100 shadow-sm" aria-labelledby={`${uid}-step-title`}>
            <div className="card-body gap-5 p-5 sm:p-8">
              <div>
                <p className="text-sm font-medium text-primary">
                  Step {step} of {WIZARD_STEPS}
                </p>
                <h2 id={`${uid}-step-title`} ref={headingRef} tabIndex={-1} className="mt-1 scroll-mt-24 text-xl font-bold outline-none sm:text-2xl">
                  {stepTitles[step - 1]}
                </h2>
              </div>

              {step === 1 ? (
                <div className="grid gap-4">
                  <p className="opacity-70">{config.details.description}</p>
                  {field("name", config.details.nameLabel, config.details.namePlaceholder, "text", "organization")}
                  {field("domain", config.details.domainLabel, recordDomainPlaceholder(config.kind), "text")}
                  {field("email", config.details.emailLabel, config.details.emailPlaceholder, "email", "email")}
                </div>
              ) : (
                config.renderStep(step as 2 | 3 | 4, context)
              )}

              <div className="flex items-center justify-between gap-2 border-t border-base-300 pt-5">
                <button type="button" className="btn btn-ghost" disabled={step === 1} onClick={() => setStep((s) => Math.max(1, s - 1))}>
                  <ArrowLeft className="h-4 w-4" aria-hidden /> Previous
                </button>
                {step < WIZARD_STEPS ? (
                  <button type="button" className="btn btn-primary" disabled={!canGoNext} onClick={() => setStep((s) => Math.min(WIZARD_STEPS, s + 1))}>
                    Next <ArrowRight className="h-4 w-4" aria-hidden />
                  </button>
                ) : (
                  <Link to="/trial" className="btn btn-primary" onClick={() => saveWizardDetails(details)}>
                    <Rocket className="h-4 w-4" aria-hidden /> Start Monitoring
                  </Link>
                )}
              </div>
              {step === 1 && !canGoNext && <p className="-mt-2 text-right text-xs opacity-60">Fill in all three fields to continue.</p>}
            </div>
          </section>

          <aside className="grid content-start gap-4">
            <div className="card border border-base-300 bg-base-100">
              <div className="card-body gap-3 p-5">
                <h2 className="flex items-center gap-2 font-semibold">
                  <LifeBuoy className="h-4 w-4 text-primary" aria-hidden /> Need help?
                </h2>
                <p className="text-sm opacity-70">Our team can walk you or your IT support through every step.</p>
                {config.helpButtons.map((label) => (
                  <button key={label} type="button" className="btn btn-outline btn-sm">
                    {label}
                  </button>
                ))}
              </div>
            </div>
            <div className="card border border-base-300 bg-base-100">
              <div className="card-body gap-2 p-5 text-sm">
                <h2 className="flex items-center gap-2 font-semibold">
                  <Clock className="h-4 w-4 text-primary" aria-hidden /> About 5 minutes
                </h2>
                <p className="opacity-70">DNS changes take 24-48 hours to propagate. You can close this page and come back any time.</p>
                <Link to="/demo" className="link link-primary">
                  See what monitoring looks like
                </Link>
              </div>
            </div>
          </aside>
        </div>
      </main>
    </div>
  );
}

function recordDomainPlaceholder(kind: WizardKind) {
  return `e.g. ${recordDomain(kind, "")}`;
}

/** A DNS value with a copy button; copying toasts SPEC §8's text. */
export function CopyableRecord({ label, value, what }: { label: string; value: string; what: "SPF record" | "DMARC record" }) {
  const { copied, copy } = useCopy(value, what);
  return (
    <div className="grid gap-1.5">
      <p className="text-sm font-medium">{label}</p>
      <div className="flex items-stretch gap-2">
        <code className="min-w-0 flex-1 break-all rounded-field border border-base-300 bg-base-200 px-3 py-2.5 font-mono text-sm" data-testid={`${what.split(" ")[0]!.toLowerCase()}-value`}>
          {value}
        </code>
        <Tooltip content={`Copy ${what}`}>
          <button type="button" className="btn btn-square btn-outline" onClick={copy} aria-label={`Copy ${what}`}>
            {copied ? <Check className="h-4 w-4 text-success" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />}
          </button>
        </Tooltip>
      </div>
    </div>
  );
}

/** The DNS record to add, as a small table (type, name, value). */
export function DnsRecordRow({ name, value, note }: { name: string; value: string; note?: string }) {
  return (
    <ScrollArea label="DNS record" className="rounded-field border border-base-300">
      <table className="table table-sm">
        <thead>
          <tr>
            <th>Type</th>
            <th>Name / Host</th>
            <th>Value</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td className="font-mono">TXT</td>
            <td className="whitespace-nowrap font-mono">{name}</td>
            <td className="break-all font-mono text-xs">{value}</td>
          </tr>
        </tbody>
      </table>
      {note && <p className="border-t border-base-300 px-3 py-2 text-xs opacity-70">{note}</p>}
    </ScrollArea>
  );
}

/** Google Workspace and Microsoft 365 DKIM steps, shared by the three wizards' step 3. */
export function DkimProviderSteps() {
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <div className="rounded-box border border-base-300 p-4">
        <h3 className="font-semibold">Google Workspace</h3>
        <ol className="mt-2 list-decimal space-y-1 pl-5 text-sm opacity-80">
          <li>Open the Google Admin console and go to Apps → Google Workspace → Gmail → Authenticate email.</li>
          <li>Select your domain and click Generate new record (2048-bit key, selector "google").</li>
          <li>Add the TXT record it shows at google._domainkey in your DNS.</li>
          <li>Return to the Admin console and click Start authentication.</li>
        </ol>
      </div>
      <div className="rounded-box border border-base-300 p-4">
        <h3 className="font-semibold">Microsoft 365</h3>
        <ol className="mt-2 list-decimal space-y-1 pl-5 text-sm opacity-80">
          <li>Open Microsoft Defender → Email &amp; collaboration → Policies &amp; rules → Threat policies → Email authentication settings → DKIM.</li>
          <li>Select your domain; Microsoft shows two CNAME records (selector1._domainkey and selector2._domainkey).</li>
          <li>Add both CNAME records in your DNS.</li>
          <li>Back in Defender, switch on Sign messages for this domain with DKIM signatures.</li>
        </ol>
      </div>
    </div>
  );
}

/** Step 4's closing notice. */
export function SetupComplete({ children }: { children: ReactNode }) {
  return (
    <div className="alert alert-success alert-soft items-start" role="status">
      <CheckCircle2 className="h-5 w-5" aria-hidden />
      <div>
        <h3 className="font-bold">Setup Complete</h3>
        <div className="text-sm">{children}</div>
      </div>
    </div>
  );
}

/**
 * After step 4: monitoring has started, protection has not (p=none only reports). Signed in,
 * the way on: the domain's readiness panel when the organisation has the domain, else Domains to add it.
 */
export function JourneyNext({ domain }: { domain: string }) {
  const me = useMe();
  const signedIn = isSignedIn(me.data);
  const domains = useQuery<DomainView[]>({ queryKey: ["/api/domains"], enabled: signedIn });
  const name = domain.trim().toLowerCase();
  const own = domains.data?.find((d) => d.name.toLowerCase() === name);
  return (
    <div className="alert alert-info alert-soft items-start" role="note" data-journey-next>
      <Gauge className="h-5 w-5" aria-hidden />
      <div className="grid gap-1 text-sm">
        <p className="font-semibold">Monitoring has started; protection comes next</p>
        <p>
          With p=none, mail that fails DMARC is still delivered: the reports show who sends as {domain}. Once every service you use passes, move to p=quarantine and
          then p=reject.
        </p>
        {signedIn ? (
          own ? (
            <Link to={`/app/domains/${encodeURIComponent(own.id)}#readiness`} className="link link-primary font-medium">
              Open the readiness panel of {own.name}
            </Link>
          ) : (
            <Link to="/app/domains" className="link link-primary font-medium">
              Add {domain} in Domains to see its readiness
            </Link>
          )
        ) : null}
      </div>
    </div>
  );
}

export function PropagationNote() {
  return (
    <p className="flex items-center gap-2 text-sm opacity-80">
      <Clock className="h-4 w-4 shrink-0" aria-hidden /> DNS changes take 24-48 hours to propagate.
    </p>
  );
}

/** The banner under a wizard's heading (e.g. HIPAA Compliance, Wire Fraud Alert). */
export function WizardBanner({ tone, icon: Icon, title, children }: { tone: "info" | "error"; icon: LucideIcon; title: string; children: ReactNode }) {
  return (
    <div className={`alert ${tone === "info" ? "alert-info" : "alert-error"} alert-soft items-start`} role="note">
      <Icon className="h-5 w-5" aria-hidden />
      <div>
        <h2 className="font-bold">{title}</h2>
        <p className="text-sm">{children}</p>
      </div>
    </div>
  );
}

/** A highlighted note inside a step ("HIPAA note:", "CRM platforms:", "Tip:"). */
export function StepNote({ tone, icon: Icon, label, children }: { tone: "info" | "warning"; icon?: LucideIcon; label: string; children: ReactNode }) {
  return (
    <div className={`alert ${tone === "info" ? "alert-info" : "alert-warning"} alert-soft text-sm`} role="note">
      {Icon && <Icon className="h-4 w-4" aria-hidden />}
      <span>
        <strong>{label}</strong> {children}
      </span>
    </div>
  );
}

/**
 * Step 2: the SPF value to copy, an optional note, who should add it and the TXT record row.
 * `who` and `includes` tune the instructions' wording ("your IT support", "the include").
 */
export function SpfStep({
  kind,
  domain,
  intro,
  note,
  who = "your IT support",
  includes = "include",
}: {
  kind: WizardKind;
  domain: string;
  /** defaults to the plain explanation of SPF */
  intro?: ReactNode;
  note?: ReactNode;
  who?: string;
  includes?: "include" | "includes";
}) {
  const value = spfRecord(kind);
  return (
    <div className="grid gap-4">
      <p className="opacity-80">{intro ?? <>SPF lists the services allowed to send email for {domain}. Receiving servers reject or flag mail from anywhere else.</>}</p>
      <CopyableRecord label="SPF record value" value={value} what="SPF record" />
      {note}
      <p className="text-sm opacity-80">
        Ask {who} to add a <strong>TXT record</strong> on the <strong>root domain</strong> (@) of {domain} with the value above. If an SPF record already exists,
        merge the {includes} into it: a domain must have only one SPF record.
      </p>
      <DnsRecordRow name="@" value={value} />
    </div>
  );
}

/** Step 3: why DKIM matters for this audience, an optional note, then the provider steps. */
export function DkimStep({ intro, note }: { intro: ReactNode; note?: ReactNode }) {
  return (
    <div className="grid gap-4">
      <p className="opacity-80">{intro}</p>
      <DkimProviderSteps />
      {note}
    </div>
  );
}

/**
 * Step 4: the DMARC value to copy, the _dmarc TXT row, the propagation note and the closing
 * notice (`complete`), then `after`. Signed out, the value is SPEC's sample (reports to a mailbox
 * at the domain); signed in, it carries the organisation's report path — its own report address
 * when this server receives mail, else the choice between a mailbox and uploading.
 */
export function DmarcStep({ kind, domain, complete, after }: { kind: WizardKind; domain: string; complete: ReactNode; after?: ReactNode }) {
  const me = useMe();
  const signedIn = isSignedIn(me.data);
  const path = useReportPath(domain, signedIn);
  const ours = signedIn && path.data ? path.data : null;
  const value = ours ? startingDmarcRecord(ours) : dmarcRecord(kind, domain);
  return (
    <div className="grid gap-4">
      <p className="opacity-80">DMARC tells receiving servers what to do with mail that fails SPF and DKIM, and sends you reports about who sends as {domain}.</p>
      <CopyableRecord label="DMARC record value" value={value} what="DMARC record" />
      <DnsRecordRow name="_dmarc" value={value} note={`Add a TXT record named _dmarc (that is, _dmarc.${domain}).`} />
      {ours ? (
        <div className="grid gap-2" data-wizard-report-path>
          <h3 className="font-semibold">Where the reports go</h3>
          <ReportPathView path={ours} />
        </div>
      ) : (
        <p className="text-sm opacity-80">
          Reports will arrive at the rua= mailbox above. After you start monitoring, dmarcwarden shows where they should go instead — its own report address for
          your organization, a mailbox it reads, or uploads.
        </p>
      )}
      <PropagationNote />
      <SetupComplete>{complete}</SetupComplete>
      <JourneyNext domain={domain} />
      {after}
    </div>
  );
}
