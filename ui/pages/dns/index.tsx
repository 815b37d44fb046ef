import { DnsLookupTool } from "../../components/DnsLookupTool";

/** /app/dns (SPEC §2): the DNS Lookup screen. */
export default function DnsPage() {
  return (
    <div className="mx-auto max-w-6xl space-y-6 p-4 sm:p-6">
      <header>
        <h1 className="text-3xl font-bold">DNS Lookup</h1>
        <p className="mt-1 opacity-70">Check any domain's DMARC, SPF and DKIM records, with what each problem means and how to fix it.</p>
      </header>
      <div className="card bg-base-100 shadow-sm">
        <div className="card-body">
          <DnsLookupTool />
        </div>
      </div>
    </div>
  );
}
