import { useEffect, useRef } from "react";
import { useLocation, useNavigate } from "react-router";
import { toast } from "../../lib/toast";
import { DashboardView } from "./DashboardView";

/** SPEC §8 trial success toast. */
export const TRIAL_STARTED_TOAST = { title: "Trial Started Successfully!", description: "Welcome to the product. Your 7-day trial is now active." } as const;

/** Shows the trial toast once when arriving with ?trial=success, then drops the parameter. */
function useTrialSuccessToast() {
  const location = useLocation();
  const navigate = useNavigate();
  const shown = useRef(false);
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    if (params.get("trial") !== "success" || shown.current) return;
    shown.current = true;
    toast({ ...TRIAL_STARTED_TOAST, variant: "success" });
    params.delete("trial");
    const search = params.toString();
    navigate({ pathname: location.pathname, search: search ? `?${search}` : "", hash: location.hash }, { replace: true });
  }, [location, navigate]);
}

export default function DashboardPage() {
  useTrialSuccessToast();
  return <DashboardView />;
}
