import { useEffect, useRef } from "react";
import { useLocation, useNavigate } from "react-router";
import { toast } from "../../lib/toast";
import { DashboardView } from "./DashboardView";

/** SPEC §8 trial success toast (Stripe mode: the payment provider returns with ?trial=success). */
export const TRIAL_STARTED_TOAST = { title: "Trial Started Successfully!", description: "Welcome to the product. Your 7-day trial is now active." } as const;

/** Billing off (self-hosted): the account is made at once and no trial clock runs, so nothing is said about a trial (arrives with ?welcome=1). */
export const ACCOUNT_READY_TOAST = { title: "Your organization is ready", description: "Welcome to dmarcwarden. Follow Getting started to add your domain and receive your first report." } as const;

/** Shows the trial or welcome toast once when arriving with its parameter, then drops the parameter. */
function useArrivalToast() {
  const location = useLocation();
  const navigate = useNavigate();
  const shown = useRef(false);
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    const trial = params.get("trial") === "success";
    const welcome = params.get("welcome") === "1";
    if ((!trial && !welcome) || shown.current) return;
    shown.current = true;
    toast({ ...(trial ? TRIAL_STARTED_TOAST : ACCOUNT_READY_TOAST), variant: "success" });
    params.delete("trial");
    params.delete("welcome");
    const search = params.toString();
    navigate({ pathname: location.pathname, search: search ? `?${search}` : "", hash: location.hash }, { replace: true });
  }, [location, navigate]);
}

export default function DashboardPage() {
  useArrivalToast();
  return <DashboardView />;
}
