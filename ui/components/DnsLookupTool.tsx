import { Search } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { splitSelectors } from "../../src/features/dns/contract";
import { normalizeDomainInput } from "../../src/lib/domain-name";
import { MAX_REQUEST_SELECTORS, SELECTOR_PATTERN } from "../../src/lib/dns/selectors";
import { errorMessage } from "../lib/api";
import { toast } from "../lib/toast";
import { useDnsLookup, type DnsAnalysis } from "./dns/api";
import { ExtrasResult } from "./dns/ExtrasResult";
import { RecordResult } from "./dns/RecordResult";
import { SpfTree } from "./dns/SpfTree";
import { StatusBadge } from "./StatusBadge";
import { dkimSummary, dmarcSummary, spfSummary } from "./dns/summaries";

/**
 * The DNS lookup of SPEC §2/§5/§8, used by /app/dns, the dashboard's quick lookup and the
 * demo's DNS tab: a domain input (button or Enter submits), then DMARC, SPF and DKIM each with
 * a valid/invalid badge and expandable details in plain words. `compact` hides the selector
 * field and the extra records.
 */
export function DnsLookupTool({ compact = false }: { compact?: boolean }) {
  const uid = useId();
  const [domain, setDomain] = useState("");
  const [selectors, setSelectors] = useState("");
  const lookup = useDnsLookup({
    onError: (error) => toast({ title: "DNS Lookup Failed", description: errorMessage(error), variant: "destructive" }),
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const checked = normalizeDomainInput(domain);
    if (!checked.ok) {
      toast({ title: checked.error, description: checked.message, variant: "destructive" });
      return;
    }
    const list = splitSelectors(selectors);
    const bad = list.find((s) => !SELECTOR_PATTERN.test(s));
    if (bad || list.length > MAX_REQUEST_SELECTORS) {
      toast({ title: "Invalid Selector", description: bad ? `"${bad}" is not a DKIM selector: use letters, digits, hyphens and dots (e.g. selector1).` : `Enter at most ${MAX_REQUEST_SELECTORS} DKIM selectors.`, variant: "destructive" });
      return;
    }
    lookup.mutate({ domain: checked.domain, ...(list.length ? { selectors: list } : {}) });
  };

  const result = lookup.data;
  return (
    <div className="space-y-4">
      <form onSubmit={submit} className="flex flex-col gap-2" noValidate>
        <div className="flex flex-col gap-2 sm:flex-row">
          <label htmlFor={`${uid}-domain`} className="sr-only">
            Domain
          </label>
          <input
            id={`${uid}-domain`}
            className="input input-bordered w-full"
            placeholder="Enter domain (e.g., example.com)"
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            inputMode="url"
            maxLength={300}
          />
          <button type="submit" className="btn btn-primary shrink-0" disabled={lookup.isPending}>
            {lookup.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden /> : <Search className="h-4 w-4" aria-hidden />}
            {lookup.isPending ? "Looking up..." : "Lookup"}
          </button>
        </div>
        {!compact ? (
          <div>
            <label htmlFor={`${uid}-selectors`} className="block text-sm opacity-70">
              DKIM selectors (optional — we also try the common ones)
            </label>
            <input
              id={`${uid}-selectors`}
              className="input input-bordered input-sm mt-1 w-full sm:max-w-md"
              placeholder="e.g. selector1, google"
              value={selectors}
              onChange={(e) => setSelectors(e.target.value)}
              autoComplete="off"
              autoCapitalize="off"
              spellCheck={false}
              maxLength={400}
            />
          </div>
        ) : null}
      </form>

      {result ? <LookupResults result={result} compact={compact} /> : null}
    </div>
  );
}

/** An analysis shown as the lookup shows it (the domain page reuses it). */
export function LookupResults({ result, compact }: { result: DnsAnalysis; compact: boolean }) {
  return (
    <div className="space-y-3" aria-live="polite">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-lg font-semibold break-all">{result.domain}</h3>
        {result.overallStatus === "unchecked" ? <StatusBadge status="unchecked" label="Could not check" /> : <StatusBadge status={result.overallStatus} />}
        {result.incomplete ? (
          <p className="basis-full text-sm" role="status">
            Could not check (DNS server did not answer). No verdict is given on answers that did not come: look up again in a minute.
          </p>
        ) : null}
      </div>
      <div className="space-y-3">
        <RecordResult
          kind="dmarc"
          check={result.dmarc}
          summary={dmarcSummary(result)}
          details={
            result.dmarc.details.rua.length ? (
              <p className="text-sm">
                Reports go to: {result.dmarc.details.rua.map((u) => u.address).join(", ")}
              </p>
            ) : null
          }
        />
        <RecordResult
          kind="spf"
          check={result.spf}
          summary={spfSummary(result)}
          details={
            result.spf.details.tree && result.spf.details.tree.children.length ? (
              <div>
                <p className="mb-1 text-sm font-medium">Include tree</p>
                <SpfTree root={result.spf.details.tree} />
              </div>
            ) : null
          }
        />
        <RecordResult kind="dkim" check={result.dkim} summary={dkimSummary(result)} />
      </div>
      {!compact ? <ExtrasResult extras={result.extras} /> : null}
    </div>
  );
}
