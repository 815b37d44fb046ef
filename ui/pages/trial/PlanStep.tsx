import { Check } from "lucide-react";
import { PLAN_LIST, type PlanKey } from "../../../src/lib/plans";

/** Step 1: the three plans of SPEC §9; Growth is pre-selected and marked Most Popular. */
export function PlanStep({ selected, onSelect, onContinue }: { selected: PlanKey; onSelect: (plan: PlanKey) => void; onContinue: () => void }) {
  return (
    <section aria-labelledby="plan-heading" className="grid gap-6">
      <div className="text-center">
        <h2 id="plan-heading" className="text-2xl font-bold">Choose your plan</h2>
        <p className="mt-1 text-base-content/70">Every plan starts with a 7-day free trial. You can change plans later.</p>
      </div>
      <div role="radiogroup" aria-label="Plans" className="grid gap-4 md:grid-cols-3">
        {PLAN_LIST.map((plan) => {
          const active = plan.key === selected;
          return (
            <button
              key={plan.key}
              type="button"
              role="radio"
              aria-checked={active}
              data-plan={plan.key}
              onClick={() => onSelect(plan.key)}
              className={`relative flex h-full flex-col rounded-box border-2 bg-base-100 p-5 text-left transition hover:border-primary/60 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary ${
                active ? "border-primary shadow-lg" : "border-base-300"
              }`}
            >
              {plan.mostPopular && <span className="badge badge-primary absolute -top-3 left-1/2 -translate-x-1/2 whitespace-nowrap">Most Popular</span>}
              <div className="flex items-start justify-between gap-2">
                <h3 className="text-lg font-semibold">{plan.name}</h3>
                <span className={`flex h-5 w-5 shrink-0 items-center justify-center rounded-full border-2 ${active ? "border-primary bg-primary text-primary-content" : "border-base-300"}`} aria-hidden>
                  {active && <Check className="h-3 w-3" />}
                </span>
              </div>
              <p className="mt-2">
                <span className="text-3xl font-bold">${plan.monthlyPrice}</span>
                <span className="text-base-content/70">/month</span>
              </p>
              <p className="mt-1 text-sm text-base-content/70">{plan.tagline}</p>
              <ul className="mt-4 grid gap-2 text-sm">
                {plan.features.map((feature) => (
                  <li key={feature} className="flex items-start gap-2">
                    <Check className="mt-0.5 h-4 w-4 shrink-0 text-success" aria-hidden />
                    <span>{feature}</span>
                  </li>
                ))}
              </ul>
            </button>
          );
        })}
      </div>
      <div className="flex justify-end">
        <button type="button" className="btn btn-primary w-full sm:w-auto" onClick={onContinue}>
          Continue
        </button>
      </div>
    </section>
  );
}
