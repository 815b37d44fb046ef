import { Briefcase } from "lucide-react";
import { useState } from "react";
import { useNavigate } from "react-router";
import { EmptyState } from "../../components/EmptyState";
import { ErrorState, LoadingState } from "../../components/QueryStates";
import { errorMessage } from "../../lib/api";
import { useMe, useSwitchOrg, type OrgSummary } from "../../lib/auth";
import { formatCount } from "../../lib/format";
import { toast } from "../../lib/toast";
import { usePortfolio, type PortfolioClient } from "./api";
import { ClientImport } from "./ClientImport";
import { ClientReportDialog } from "./ClientReportDialog";
import { PortfolioTable } from "./PortfolioTable";
import { needsAttention } from "./view";

/**
 * Portfolio (/app/portfolio): every client of the managing organization with its figures, for
 * the MSP's owners and admins; one click switches into a client. Bulk onboarding from CSV below.
 */
export default function PortfolioPage() {
  const me = useMe();
  const current = me.data?.currentOrg ?? null;
  const parent = current?.parentId ? (me.data?.organizations.find((o) => o.id === current.parentId) ?? null) : null;
  if (current?.parentId) return <InsideClient client={current} parent={parent} />;
  return <Portfolio orgName={current?.name ?? ""} />;
}

function Heading({ orgName }: { orgName: string }) {
  return (
    <div>
      <h1 className="text-3xl font-bold">Portfolio</h1>
      <p className="mt-1 opacity-70">{orgName ? `Every client of ${orgName} at a glance. Open a client to work in it.` : "Every client at a glance. Open a client to work in it."}</p>
    </div>
  );
}

function Portfolio({ orgName }: { orgName: string }) {
  const portfolio = usePortfolio();
  const open = useOpenClient();
  const [reportOf, setReportOf] = useState<{ id: string; name: string } | null>(null);
  const clients = portfolio.data?.clients ?? [];
  return (
    <div className="mx-auto flex max-w-7xl flex-col gap-6">
      <Heading orgName={orgName} />
      {portfolio.isPending ? (
        <LoadingState text="Loading clients..." />
      ) : portfolio.isError ? (
        <section className="card border border-base-300 bg-base-100">
          <ErrorState error={portfolio.error} onRetry={() => portfolio.refetch()} />
        </section>
      ) : (
        <>
          {clients.length > 0 && <Totals clients={clients} />}
          {clients.length === 0 ? (
            <section className="card border border-base-300 bg-base-100">
              <EmptyState icon={Briefcase} title="No clients yet">
                Create a client from the organization switcher, or import clients and their domains from a CSV below.
              </EmptyState>
            </section>
          ) : (
            <PortfolioTable clients={clients} onOpen={open.openClient} opening={open.opening} onReport={(c) => setReportOf({ id: c.id, name: c.name })} />
          )}
          <ClientImport />
          <ClientReportDialog client={reportOf} onClose={() => setReportOf(null)} />
        </>
      )}
    </div>
  );
}

function Totals({ clients }: { clients: PortfolioClient[] }) {
  const domains = clients.reduce((n, c) => n + c.domains, 0);
  const attention = clients.filter(needsAttention).length;
  const items: [string, string][] = [
    ["Clients", formatCount(clients.length)],
    ["Domains", formatCount(domains)],
    ["Need attention", formatCount(attention)],
    ["Open tasks", formatCount(clients.reduce((n, c) => n + c.openTasks, 0))],
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" aria-label="Portfolio totals">
      {items.map(([label, value]) => (
        <div key={label} className="rounded-box border border-base-300 bg-base-100 px-4 py-3">
          <dt className="text-xs font-medium uppercase tracking-wide opacity-70">{label}</dt>
          <dd className="text-2xl font-semibold">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Switches the session into a client (the organization switcher's own call) and opens its dashboard. */
function useOpenClient() {
  const switchOrg = useSwitchOrg();
  const navigate = useNavigate();
  const [opening, setOpening] = useState<string | null>(null);
  const openClient = (client: { id: string; name: string }) => {
    setOpening(client.id);
    switchOrg.mutate(client.id, {
      onSuccess: () => {
        toast({ title: "Organization switched", description: `You are now working in ${client.name}.` });
        navigate("/app/dashboard");
      },
      onError: (e) => toast({ title: "Could not switch organization", description: errorMessage(e), variant: "destructive" }),
      onSettled: () => setOpening(null),
    });
  };
  return { openClient, opening };
}

/** Inside a client organization the portfolio is not there: it belongs to the managing organization. */
function InsideClient({ client, parent }: { client: OrgSummary; parent: OrgSummary | null }) {
  const switchOrg = useSwitchOrg();
  return (
    <div className="mx-auto flex max-w-7xl flex-col gap-6">
      <Heading orgName="" />
      <section className="card border border-base-300 bg-base-100">
        <EmptyState icon={Briefcase} title={`${client.name} is a client organization`}>
          {parent ? `The portfolio belongs to ${parent.name}, which manages it.` : "The portfolio belongs to the organization that manages it."}
        </EmptyState>
        {parent && (
          <div className="flex justify-center pb-8">
            <button
              type="button"
              className="btn btn-primary"
              disabled={switchOrg.isPending}
              onClick={() =>
                switchOrg.mutate(parent.id, {
                  onSuccess: () => toast({ title: "Organization switched", description: `You are now working in ${parent.name}.` }),
                  onError: (e) => toast({ title: "Could not switch organization", description: errorMessage(e), variant: "destructive" }),
                })
              }
            >
              Switch to {parent.name}
            </button>
          </div>
        )}
      </section>
    </div>
  );
}
