import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowRight, CheckCircle2, Circle, PartyPopper } from "lucide-react";
import { Link } from "react-router";
import type { OnboardingView } from "../../../src/features/onboarding/contract";
import { apiRequest, errorMessage } from "../../lib/api";
import { toast } from "../../lib/toast";

export const ONBOARDING_KEY = ["/api/onboarding"] as const;

/**
 * The getting-started checklist of a new organization (GET /api/onboarding): five steps, each
 * checked by the server from real state; once all are done it can be put away for the whole
 * organization. Hidden when put away, and while it loads or fails (the dashboard's other cards
 * say the same things).
 */
export function GettingStarted() {
  const queryClient = useQueryClient();
  // read afresh each time the dashboard opens: the steps change on other screens (a domain added, a check run)
  const query = useQuery<OnboardingView>({ queryKey: ONBOARDING_KEY, refetchOnMount: "always" });
  const dismiss = useMutation({
    mutationFn: async () => (await (await apiRequest("POST", "/api/onboarding/dismiss")).json()) as OnboardingView,
    onSuccess: (view) => queryClient.setQueryData(ONBOARDING_KEY, view),
    onError: (error) => toast({ title: "Could not put the checklist away", description: errorMessage(error), variant: "destructive" }),
  });
  if (!query.data || query.data.dismissed) return null;
  const { steps, complete } = query.data;
  const doneCount = steps.filter((s) => s.done).length;
  const next = steps.find((s) => !s.done);

  return (
    <section className="card border border-primary/30 bg-base-100" aria-labelledby="getting-started-title" data-getting-started>
      <div className="card-body gap-3 p-4 sm:p-5">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div>
            <h2 id="getting-started-title" className="card-title text-base">
              {complete ? <PartyPopper className="h-5 w-5 text-success" aria-hidden /> : null}
              Getting started
            </h2>
            <p className="text-sm opacity-70">
              {complete ? "Every step is done: your domains are monitored and protected." : `${doneCount} of ${steps.length} steps done — from your first domain to a policy that stops spoofing.`}
            </p>
          </div>
          {complete && (
            <button type="button" className="btn btn-outline btn-sm" onClick={() => dismiss.mutate()} disabled={dismiss.isPending}>
              Put away
            </button>
          )}
        </div>
        <progress className="progress progress-primary w-full" value={doneCount} max={steps.length} aria-label={`${doneCount} of ${steps.length} steps done`} />
        <ol className="grid gap-1" aria-label="Getting-started steps">
          {steps.map((step, i) => (
            <li key={step.key} className={`flex flex-wrap items-start gap-x-3 gap-y-2 rounded-box p-2 ${step === next ? "bg-primary/5" : ""}`} data-step={step.key} data-done={step.done}>
              {step.done ? <CheckCircle2 className="mt-0.5 h-5 w-5 shrink-0 text-success" aria-hidden /> : <Circle className="mt-0.5 h-5 w-5 shrink-0 opacity-40" aria-hidden />}
              <div className="min-w-0 flex-1 basis-52">
                <p className={`text-sm font-medium ${step.done ? "opacity-70" : ""}`}>
                  {i + 1}. {step.title}
                  <span className="sr-only">{step.done ? " (done)" : " (to do)"}</span>
                </p>
                <p className="text-xs opacity-70 wrap-anywhere">{step.detail}</p>
              </div>
              {step === next && (
                <Link to={step.link} className="btn btn-primary btn-xs ml-8 shrink-0 gap-1 sm:ml-0">
                  {step.key === "domain" ? "Add a domain" : step.key === "dmarc" ? "Where reports go" : step.key === "report" ? "Reports" : step.key === "sources" ? "Tasks" : "Readiness"}
                  <ArrowRight className="h-3 w-3" aria-hidden />
                </Link>
              )}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
