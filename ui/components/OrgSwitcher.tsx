import * as Dropdown from "@radix-ui/react-dropdown-menu";
import { Briefcase, Building2, Check, ChevronsUpDown, Plus } from "lucide-react";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { errorMessage } from "../lib/api";
import { groupOrganizations, ROLE_LABELS, useCreateClient, useSwitchOrg, type MeResponse, type OrgSummary } from "../lib/auth";
import { toast } from "../lib/toast";
import { Modal, ModalHeader } from "./Modal";

/**
 * The organization switcher at the top of the sidebar: every organization the user may act
 * in, MSP clients grouped under their managing organization, and "New client organization"
 * for owners and admins of a top-level organization.
 */
export function OrgSwitcher({ me }: { me: MeResponse }) {
  const switchOrg = useSwitchOrg();
  const [creating, setCreating] = useState(false);
  const current = me.currentOrg;
  const canCreateClient = Boolean(current && !current.parentId && (current.role === "owner" || current.role === "admin"));
  const portfolioOrg = portfolioOrganization(me);
  const navigate = useNavigate();
  /** The MSP portfolio lives in the managing organization: switch there first when working in a client. */
  const openPortfolio = (org: OrgSummary) => {
    if (org.id === current?.id) return navigate("/app/portfolio");
    switchOrg.mutate(org.id, {
      onSuccess: () => navigate("/app/portfolio"),
      onError: (e) => toast({ title: "Could not switch organization", description: errorMessage(e), variant: "destructive" }),
    });
  };

  const choose = (org: OrgSummary) => {
    if (org.id === current?.id) return;
    switchOrg.mutate(org.id, {
      onSuccess: () => toast({ title: "Organization switched", description: `You are now working in ${org.name}.` }),
      onError: (e) => toast({ title: "Could not switch organization", description: errorMessage(e), variant: "destructive" }),
    });
  };

  const item = (org: OrgSummary, indent: boolean) => (
    <Dropdown.Item
      key={org.id}
      onSelect={() => choose(org)}
      className={`flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-base-200 ${indent ? "pl-6" : ""}`}
    >
      <span className="min-w-0 flex-1 break-words">{org.name}</span>
      <span className="text-xs opacity-60">{ROLE_LABELS[org.role]}</span>
      {org.id === current?.id ? <Check className="h-4 w-4 text-primary" aria-label="current" /> : <span className="w-4" />}
    </Dropdown.Item>
  );

  return (
    <div className="px-3 pb-2">
      <Dropdown.Root modal={false}>
        <Dropdown.Trigger className="btn btn-ghost btn-sm h-auto w-full justify-between border border-base-300 px-3 py-2 font-normal" title={current?.name}>
          <span className="flex min-w-0 items-center gap-2">
            <Building2 className="h-4 w-4 shrink-0 opacity-70" aria-hidden />
            {/* long names wrap onto more lines rather than lose their end */}
            <span className="min-w-0 whitespace-normal break-words text-left text-sm font-medium">{current?.name ?? "Choose an organization"}</span>
            <span className="sr-only">, switch organization</span>
          </span>
          <ChevronsUpDown className="h-4 w-4 shrink-0 opacity-60" aria-hidden />
        </Dropdown.Trigger>
        <Dropdown.Portal>
          <Dropdown.Content align="start" sideOffset={4} className="z-50 w-72 max-w-[calc(100vw-1rem)] rounded-box border border-base-300 bg-base-100 p-1 shadow-lg">
            <Dropdown.Label className="px-2 py-1 text-xs font-semibold uppercase opacity-70">Organizations</Dropdown.Label>
            {groupOrganizations(me.organizations).map(({ org, clients }) => (
              <Dropdown.Group key={org.id} aria-label={org.name}>
                {item(org, false)}
                {clients.length > 0 && <div className="px-6 pt-1 text-[11px] uppercase tracking-wide opacity-70">Clients</div>}
                {clients.map((c) => item(c, true))}
              </Dropdown.Group>
            ))}
            {portfolioOrg && (
              <>
                <Dropdown.Separator className="my-1 h-px bg-base-300" />
                <Dropdown.Item onSelect={() => openPortfolio(portfolioOrg)} className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-base-200">
                  <Briefcase className="h-4 w-4" aria-hidden />
                  <span className="min-w-0 flex-1 break-words">Client portfolio</span>
                </Dropdown.Item>
              </>
            )}
            {canCreateClient && (
              <>
                <Dropdown.Separator className="my-1 h-px bg-base-300" />
                <Dropdown.Item onSelect={() => setCreating(true)} className="flex cursor-pointer items-center gap-2 rounded px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-base-200">
                  <Plus className="h-4 w-4" aria-hidden />
                  New client organization
                </Dropdown.Item>
              </>
            )}
          </Dropdown.Content>
        </Dropdown.Portal>
      </Dropdown.Root>
      <NewClientDialog open={creating} onOpenChange={setCreating} parentName={current?.name ?? ""} />
    </div>
  );
}

/**
 * The organization whose client portfolio the switcher offers (once it has clients): the current
 * one when the user manages it, else the one managing the current client, else the first they manage.
 */
function portfolioOrganization(me: MeResponse): OrgSummary | null {
  const manages = (o: OrgSummary | null | undefined): o is OrgSummary => Boolean(o && !o.parentId && (o.role === "owner" || o.role === "admin"));
  const current = me.currentOrg;
  if (manages(current) && me.organizations.some((o) => o.parentId === current.id)) return current;
  const parent = current?.parentId ? me.organizations.find((o) => o.id === current.parentId) : null;
  if (manages(parent)) return parent;
  return me.organizations.find((o) => manages(o) && me.organizations.some((c) => c.parentId === o.id)) ?? null;
}

function NewClientDialog({ open, onOpenChange, parentName }: { open: boolean; onOpenChange: (open: boolean) => void; parentName: string }) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const create = useCreateClient();
  const close = (next: boolean) => {
    if (!next) {
      setName("");
      setError(null);
    }
    onOpenChange(next);
  };
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (name.trim().length < 2) return setError("Organization name must be at least 2 characters");
    create.mutate(name.trim(), {
      onSuccess: (org) => {
        toast({ title: "Client organization created", description: `${org.name} is managed by ${parentName}. Switch to it from this menu.` });
        close(false);
      },
      onError: (err) => setError(errorMessage(err)),
    });
  };
  return (
    <Modal open={open} onOpenChange={close}>
      <ModalHeader title="New client organization" description={`Owners and admins of ${parentName} manage it with their own role.`} />
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <label className="w-full">
          <span className="mb-1 block text-sm font-medium">Organization name</span>
          <input className={`input input-bordered w-full ${error ? "input-error" : ""}`} value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </label>
        {error && (
          <p className="text-sm text-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={create.isPending}>
          {create.isPending ? "Creating..." : "Create client"}
        </button>
        <p className="text-sm opacity-70">
          Many clients?{" "}
          <Link to="/app/portfolio" className="link" onClick={() => close(false)}>
            Import them with their domains from a CSV
          </Link>
          .
        </p>
      </form>
    </Modal>
  );
}
