// OWNED BY the DNS work (issue 5). Used by /app/dns, the dashboard's quick lookup and the demo's DNS tab.
// Contract: <DnsLookupTool compact? /> renders the input (Enter or button submits), the three badges and details.
export function DnsLookupTool(_props: { compact?: boolean }) {
  return null;
}
