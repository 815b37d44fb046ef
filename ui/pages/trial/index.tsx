import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { TRIAL_VERIFICATION_MESSAGE, type TrialSetupInput } from "../../../src/features/billing/contract";
import { DEFAULT_PLAN, isPlanKey, PLANS, type PlanKey } from "../../../src/lib/plans";
import { SiteHeader } from "../../components/SiteHeader";
import { ApiError } from "../../lib/api";
import { clearWizardDetails, wizardDetails } from "../../lib/wizard-handoff";
import { apiRequest } from "../../lib/api";
import { createTrialSetup, TRIAL_CHECK_EMAIL_PATH, TRIAL_RETURN_PATH, useBillingConfig, WELCOME_PATH } from "./api";
import { DetailsStep, EMPTY_DETAILS, type TrialDetails } from "./DetailsStep";
import { PaymentStep } from "./PaymentStep";
import { PlanStep } from "./PlanStep";

type Step = "plan" | "details" | "payment";

/** True unless this document was loaded at another path and the app then navigated here. */
function documentLoadedHere(): boolean {
  const entry = globalThis.performance?.getEntriesByType?.("navigation")[0];
  if (!entry || !/^https?:/.test(entry.name)) return true;
  return new URL(entry.name).pathname === window.location.pathname;
}

/**
 * /trial (SPEC §2, §4): plan → details → payment. Back returns payment to details and details
 * to plan. With billing off (no Stripe keys on the server) there is no payment step: the
 * details call signs the visitor in and the flow ends on the dashboard. With mail on the
 * server nobody is signed in by the form: the flow ends on "check your email" (after the
 * payment step, when there is one), and the mailed link signs in.
 */
export default function TrialPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const config = useBillingConfig();
  const billingOn = config.data?.enabled ?? false;
  const [step, setStep] = useState<Step>("plan");
  // The server lets Stripe's origins into the Content-Security-Policy of /trial itself only:
  // reached through an in-app link, the page is loaded anew so the payment step can run.
  useEffect(() => {
    if (billingOn && !documentLoadedHere()) window.location.reload();
  }, [billingOn]);
  // The landing page's plan cards link to /trial?plan=<key>; otherwise SPEC's default, Growth.
  const [params] = useSearchParams();
  const [plan, setPlan] = useState<PlanKey>(() => {
    const asked = params.get("plan");
    return isPlanKey(asked) ? asked : DEFAULT_PLAN;
  });
  // what a setup wizard's visitor already typed: company and email here, the domain added once the account exists
  const [carried] = useState(() => wizardDetails());
  const [details, setDetails] = useState<TrialDetails>(() => ({ ...EMPTY_DETAILS, company: carried?.name ?? "", email: carried?.email ?? "" }));
  const [clientSecret, setClientSecret] = useState<string | null>(null);
  const [serverFields, setServerFields] = useState<Record<string, string> | undefined>();
  // mail on: the account waits for its confirmation link (also where the payment provider returns then)
  const [awaitingLink, setAwaitingLink] = useState(false);
  const [checkEmail, setCheckEmail] = useState<string | null>(() => (params.get("step") === "check-email" ? TRIAL_VERIFICATION_MESSAGE : null));

  const setup = useMutation({ mutationFn: createTrialSetup });

  function submitDetails(values: TrialSetupInput) {
    const { selectedPlan: _plan, ...rest } = values;
    setDetails(rest);
    setServerFields(undefined);
    setClientSecret(null);
    if (billingOn) setStep("payment"); // shows "Setting up your trial..." until the secret arrives
    setup.mutate(values, {
      onSuccess: async ({ clientSecret: secret, verificationSent, message }) => {
        if (verificationSent) {
          // not signed in yet: the wizard's details wait for the next visit
          setAwaitingLink(true);
          if (!secret) {
            setCheckEmail(message ?? TRIAL_VERIFICATION_MESSAGE);
            return;
          }
          setClientSecret(secret);
          setStep("payment");
          return;
        }
        setAwaitingLink(false);
        // The visitor is signed in now: the wizard's domain becomes the organization's first (a refusal leaves it to Domains).
        if (carried?.domain) await apiRequest("POST", "/api/domains", { name: carried.domain }).catch(() => undefined);
        clearWizardDetails();
        // nothing cached while signed out still holds
        void queryClient.invalidateQueries();
        if (!secret) {
          // billing off: no trial clock runs, so the dashboard says the account is ready, not that a trial started
          navigate(WELCOME_PATH);
          return;
        }
        setClientSecret(secret);
        setStep("payment");
      },
      onError: (error) => {
        // SPEC §8: a failed trial setup is logged only; the form stays (with any field messages beside their fields).
        console.error("Trial setup failed", error);
        if (error instanceof ApiError && error.fields) setServerFields(error.fields);
        setStep("details");
      },
    });
  }

  const steps: { key: Step; label: string }[] = [
    { key: "plan", label: "Plan" },
    { key: "details", label: "Details" },
    ...(billingOn ? [{ key: "payment" as const, label: "Payment" }] : []),
  ];
  const current = steps.findIndex((s) => s.key === step);

  if (checkEmail) {
    return (
      <div className="min-h-screen bg-base-200">
        <SiteHeader>
          <Link to="/login" className="btn btn-ghost btn-sm">
            Sign In
          </Link>
        </SiteHeader>
        <main className="mx-auto grid max-w-xl gap-4 px-4 py-12 text-center sm:px-6">
          <h1 className="text-3xl font-bold">Check your email to continue</h1>
          <p role="status" className="text-base-content/80">
            {checkEmail}
          </p>
          <Link to="/" className="link link-primary text-sm">
            Return to Home
          </Link>
        </main>
      </div>
    );
  }

  return (
    <div className="min-h-screen bg-base-200">
      <SiteHeader>
        {/* the customers' door ("Sign In" is the Master Administrator's on the landing page) */}
        <Link to="/login" className="btn btn-ghost btn-sm">
          Log in
        </Link>
      </SiteHeader>
      <main className="mx-auto grid max-w-6xl gap-8 px-4 py-8 sm:px-6 sm:py-12">
        <div className="text-center">
          <h1 className="text-3xl font-bold sm:text-4xl">Start your 7-day free trial</h1>
          <p className="mt-2 text-base-content/70">Set up DMARC, SPF and DKIM monitoring in about 5 minutes.</p>
        </div>
        <ol className="steps w-full" aria-label="Trial steps">
          {steps.map((s, i) => (
            <li key={s.key} className={`step ${i <= current ? "step-primary" : ""}`} aria-current={i === current ? "step" : undefined}>
              {s.label}
            </li>
          ))}
        </ol>
        {step === "plan" && <PlanStep selected={plan} onSelect={setPlan} onContinue={() => setStep("details")} />}
        {step === "details" && (
          <DetailsStep
            plan={plan}
            carriedDomain={carried?.domain || null}
            defaultValues={details}
            serverFields={serverFields}
            submitting={setup.isPending}
            onBack={(values) => {
              setDetails(values);
              setStep("plan");
            }}
            onSubmit={submitDetails}
          />
        )}
        {step === "payment" && (
          <PaymentStep
            clientSecret={clientSecret}
            publishableKey={config.data?.publishableKey ?? null}
            plan={PLANS[plan]}
            returnPath={awaitingLink ? TRIAL_CHECK_EMAIL_PATH : TRIAL_RETURN_PATH}
            onBack={() => setStep("details")}
          />
        )}
      </main>
    </div>
  );
}
