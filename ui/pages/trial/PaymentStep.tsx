import { Elements, PaymentElement, useElements, useStripe } from "@stripe/react-stripe-js";
import type { Stripe } from "@stripe/stripe-js";
// "pure" loads Stripe.js only when loadStripe is called: nothing reaches Stripe unless billing is on.
import { loadStripe } from "@stripe/stripe-js/pure";
import { ArrowLeft, Lock } from "lucide-react";
import { useMemo, useState, type FormEvent } from "react";
import type { Plan } from "../../../src/lib/plans";
import { toast } from "../../lib/toast";
import { TrialTerms } from "./TrialTerms";

/** SPEC §8 payment toasts. */
export const PAYMENT_FAILED_TITLE = "Payment Setup Failed";
export const UNEXPECTED_ERROR_TOAST = { title: "An error occurred", description: "Please try again or contact support." } as const;

const stripeLoads = new Map<string, Promise<Stripe | null>>();
function stripeFor(publishableKey: string): Promise<Stripe | null> {
  let load = stripeLoads.get(publishableKey);
  if (!load) {
    load = loadStripe(publishableKey).catch((error: unknown) => {
      console.error("Stripe.js could not be loaded", error);
      stripeLoads.delete(publishableKey);
      return null;
    });
    stripeLoads.set(publishableKey, load);
  }
  return load;
}

/**
 * Step 3: the card form (Stripe Elements) confirming the SetupIntent. Until the client secret
 * arrives it shows "Setting up your trial..."; the button waits for Stripe.js to load.
 */
export function PaymentStep({
  clientSecret,
  publishableKey,
  plan,
  returnPath,
  onBack,
}: {
  clientSecret: string | null;
  publishableKey: string | null;
  plan: Plan;
  /** where the payment provider sends the visitor once the card is saved */
  returnPath: string;
  onBack: () => void;
}) {
  const stripePromise = useMemo(() => (clientSecret && publishableKey ? stripeFor(publishableKey) : null), [clientSecret, publishableKey]);
  return (
    <section aria-labelledby="payment-heading" className="mx-auto grid w-full max-w-xl gap-6">
      <div>
        <h2 id="payment-heading" className="text-2xl font-bold">Add your payment method</h2>
        <p className="mt-1 text-base-content/70">Start your 7-day free trial of {plan.name}. You will not be charged today.</p>
      </div>
      <div className="grid gap-4 rounded-box border border-base-300 bg-base-100 p-5 shadow-sm">
        {!clientSecret || !stripePromise ? (
          <div role="status" className="flex items-center justify-center gap-3 py-10 text-base-content/80">
            <span className="loading loading-spinner loading-md text-primary" aria-hidden />
            Setting up your trial...
          </div>
        ) : (
          <Elements stripe={stripePromise} options={{ clientSecret, appearance: { theme: "stripe" } }}>
            <CardSetupForm returnPath={returnPath} onBack={onBack} />
          </Elements>
        )}
        {!clientSecret && (
          <div>
            <BackButton onBack={onBack} />
          </div>
        )}
      </div>
      <TrialTerms plan={plan} />
    </section>
  );
}

function BackButton({ onBack, disabled }: { onBack: () => void; disabled?: boolean }) {
  return (
    <button type="button" className="btn btn-ghost" onClick={onBack} disabled={disabled}>
      <ArrowLeft className="h-4 w-4" aria-hidden />
      Back
    </button>
  );
}

function CardSetupForm({ returnPath, onBack }: { returnPath: string; onBack: () => void }) {
  const stripe = useStripe();
  const elements = useElements();
  const [processing, setProcessing] = useState(false);
  const ready = Boolean(stripe && elements);

  async function confirm(event: FormEvent) {
    event.preventDefault();
    if (!stripe || !elements) return;
    setProcessing(true);
    try {
      const { error } = await stripe.confirmSetup({ elements, confirmParams: { return_url: `${window.location.origin}${returnPath}` } });
      // On success Stripe.js leaves the page for return_url; coming back here means it refused.
      if (error) toast({ title: PAYMENT_FAILED_TITLE, description: error.message ?? UNEXPECTED_ERROR_TOAST.description, variant: "destructive" });
    } catch (error) {
      console.error("Payment setup failed", error);
      toast({ ...UNEXPECTED_ERROR_TOAST, variant: "destructive" });
    } finally {
      setProcessing(false);
    }
  }

  return (
    <form aria-label="Payment method" onSubmit={confirm} className="grid gap-4">
      <PaymentElement />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-between">
        <BackButton onBack={onBack} disabled={processing} />
        <button type="submit" className="btn btn-primary" disabled={!ready || processing}>
          {processing ? (
            <>
              <span className="loading loading-spinner loading-sm" aria-hidden />
              Processing...
            </>
          ) : (
            <>
              <Lock className="h-4 w-4" aria-hidden />
              Start Free Trial
            </>
          )}
        </button>
      </div>
    </form>
  );
}
