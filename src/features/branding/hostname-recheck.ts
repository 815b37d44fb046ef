/**
 * The daily re-check of verified custom hostnames: a hostname that no longer points at the
 * deployment, or whose proof record is gone, becomes failed and stops being used (and free for
 * another organisation to prove) (sign-in branding by Host, mail links). Runs
 * with the DNS checks' scheduler (wireDnsChecks); one node per hostname and day through a lease.
 */
import { claimLease } from "../../db/leases";
import type { ServiceContext } from "../../http/access";
import { periodic } from "../../lib/periodic";
import { checkHostname, hostnamesDue } from "./service";

const DAY_MS = 86_400_000;
/** how often the scheduler looks for hostnames due (each is checked once a day) */
const WAKE_MS = 60 * 60_000;

type RecheckDeps = Pick<ServiceContext, "store" | "now" | "resolver" | "log" | "secretKey"> & { config: ServiceContext["config"] };

/** Re-checks every verified hostname last checked a day or more ago. Returns how many were checked. */
export async function recheckHostnames(deps: RecheckDeps): Promise<number> {
  if (!deps.resolver) return 0;
  const now = deps.now();
  let checked = 0;
  for (const orgId of await hostnamesDue(deps, new Date(now.getTime() - DAY_MS))) {
    try {
      if (!(await claimLease(deps.store, `hostname-check:${orgId}`, DAY_MS / 1000 - 600, now))) continue;
      const result = await checkHostname(deps, orgId);
      if (!result) continue;
      checked++;
      if (result.status !== "verified") deps.log?.warn("custom_hostname_unverified", { org: orgId, hostname: result.customHostname, message: result.message });
    } catch (error) {
      deps.log?.error("custom_hostname_check_failed", { org: orgId, error: String(error) });
    }
  }
  return checked;
}

/** Re-checks the hostnames due now and then hourly; runs never overlap. */
export function startHostnameRecheck(deps: RecheckDeps, firstDelayMs = 0): { stop(): Promise<void> } {
  if (!deps.resolver) return { stop: async () => {} };
  return periodic({
    everyMs: WAKE_MS,
    firstAfterMs: firstDelayMs,
    run: () => recheckHostnames(deps),
    onError: (error) => deps.log?.error("custom_hostname_check_failed", { error: String(error) }),
  });
}
