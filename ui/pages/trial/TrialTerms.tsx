import { CalendarCheck, CreditCard, RefreshCw, ShieldCheck, XCircle } from "lucide-react";
import type { Plan } from "../../../src/lib/plans";

/** SPEC §9 trial terms: 7 days, no charge today or during the trial, automatic conversion, cancel anytime. */
export function TrialTerms({ plan }: { plan: Plan }) {
  const terms = [
    { icon: CalendarCheck, text: "7-day free trial with full access to your plan" },
    { icon: CreditCard, text: "Your card will not be charged today" },
    { icon: ShieldCheck, text: "No charge during the 7-day trial" },
    { icon: RefreshCw, text: `After the trial, your subscription converts automatically to ${plan.name} at ${plan.priceLabel}` },
    { icon: XCircle, text: "Cancel anytime before the trial ends and you pay nothing" },
  ];
  return (
    <section aria-label="Trial terms" className="rounded-box border border-base-300 bg-base-200/60 p-4">
      <h3 className="mb-2 text-sm font-semibold">Trial terms</h3>
      <ul className="grid gap-2 text-sm">
        {terms.map(({ icon: Icon, text }) => (
          <li key={text} className="flex items-start gap-2">
            <Icon className="mt-0.5 h-4 w-4 shrink-0 text-primary" aria-hidden />
            <span>{text}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
