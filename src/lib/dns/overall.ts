/**
 * A domain's overall status from its three checks — the one rule, used by the domain list,
 * the dashboard and the lookup:
 *   protected  = DMARC at quarantine or reject, SPF valid and DKIM valid;
 *   vulnerable = DMARC missing, none or invalid AND SPF or DKIM not valid
 *                (nothing stops spoofed mail from being delivered);
 *   partial    = anything in between (enforced DMARC with an SPF or DKIM problem, or
 *                monitoring-only DMARC with SPF and DKIM both valid).
 */
import type { DkimStatus } from "./dkim";
import type { DmarcStatus } from "./dmarc";
import type { SpfStatus } from "./spf-tree";

export type OverallStatus = "protected" | "partial" | "vulnerable";

export function overallStatus(dmarc: DmarcStatus, spf: SpfStatus, dkim: DkimStatus): OverallStatus {
  const enforced = dmarc === "quarantine" || dmarc === "reject";
  const spfOk = spf === "valid";
  const dkimOk = dkim === "valid";
  if (enforced && spfOk && dkimOk) return "protected";
  if (!enforced && (!spfOk || !dkimOk)) return "vulnerable";
  return "partial";
}
