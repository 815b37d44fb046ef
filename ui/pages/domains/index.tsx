import { Globe, Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { normalizeDomainInput } from "../../../src/lib/domain-name";
import { DomainStatusTable } from "../../components/DomainStatusTable";
import { Modal, ModalClose, ModalHeader } from "../../components/Modal";
import { errorMessage } from "../../lib/api";
import { toast } from "../../lib/toast";
import { useAddDomain, useDeleteDomain, useDomains, type DomainView } from "./api";
import { ErrorState, LoadingState } from "../../components/QueryStates";

/** Domain Management (/app/domains): the current organisation's domains; add and remove them. */
export default function DomainsPage() {
  const domains = useDomains();
  const [removing, setRemoving] = useState<DomainView | null>(null);
  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-6">
      <div>
        <h1 className="text-3xl font-bold">Domain Management</h1>
        <p className="mt-1 opacity-70">The domains this organization monitors, with their DMARC, SPF and DKIM status.</p>
      </div>
      <AddDomainForm />
      <section className="card border border-base-300 bg-base-100 shadow-sm">
        <div className="card-body p-0">
          {domains.isPending ? (
            <LoadingState text="Loading domains..." />
          ) : domains.isError ? (
            <ErrorState error={domains.error} onRetry={() => domains.refetch()} />
          ) : (
            <DomainStatusTable
              domains={domains.data}
              stackOnPhones
              linkTo={(d) => `/app/domains/${d.id}`}
              renderActions={(d) => (
                <button type="button" className="btn btn-ghost btn-sm text-error" onClick={() => setRemoving(d)} aria-label={`Remove ${d.name}`}>
                  <Trash2 className="h-4 w-4" aria-hidden />
                </button>
              )}
              empty={
                <div className="flex flex-col items-center gap-2 p-10 text-center">
                  <Globe className="h-10 w-10 opacity-40" aria-hidden />
                  <p className="font-medium">No domains</p>
                  <p className="text-sm opacity-70">Add your first domain above to start checking its DNS records.</p>
                </div>
              }
            />
          )}
        </div>
      </section>
      <RemoveDomainDialog domain={removing} onClose={() => setRemoving(null)} />
    </div>
  );
}

function AddDomainForm() {
  const add = useAddDomain();
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const checked = normalizeDomainInput(value);
    if (!checked.ok) return setError(checked.message);
    setError(null);
    add.mutate(checked.domain, {
      onSuccess: (domain) => {
        setValue("");
        toast({ title: "Domain added", description: `${domain.name} was added. Its DNS records will be checked shortly.`, variant: "success" });
      },
      onError: (err) => setError(errorMessage(err)),
    });
  };
  return (
    <form onSubmit={submit} noValidate className="card border border-base-300 bg-base-100 shadow-sm" aria-label="Add domain">
      <div className="card-body gap-2 p-4 sm:p-6">
        <label htmlFor="new-domain" className="text-sm font-medium">
          Add a domain
        </label>
        <div className="flex flex-col gap-2 sm:flex-row">
          <input
            id="new-domain"
            className={`input input-bordered w-full sm:max-w-md ${error ? "input-error" : ""}`}
            placeholder="example.com"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "new-domain-error" : undefined}
            autoComplete="off"
            spellCheck={false}
          />
          <button type="submit" className="btn btn-primary" disabled={add.isPending}>
            <Plus className="h-4 w-4" aria-hidden />
            {add.isPending ? "Adding..." : "Add Domain"}
          </button>
        </div>
        {error && (
          <p id="new-domain-error" className="text-sm text-error" role="alert">
            {error}
          </p>
        )}
      </div>
    </form>
  );
}

function RemoveDomainDialog({ domain, onClose }: { domain: DomainView | null; onClose: () => void }) {
  const remove = useDeleteDomain();
  const close = () => {
    remove.reset();
    onClose();
  };
  const confirm = () =>
    domain &&
    remove.mutate(domain.id, {
      onSuccess: () => {
        toast({ title: "Domain removed", description: `${domain.name} is no longer monitored.` });
        close();
      },
    });
  return (
    <Modal open={domain !== null} onOpenChange={(open) => !open && close()} closeButton={false}>
      <ModalHeader title={`Remove ${domain?.name}?`} description="Its DNS checks and reports will no longer be shown for this organization." />
      {remove.isError && (
        <p className="mb-3 text-sm text-error" role="alert">
          {errorMessage(remove.error)}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <ModalClose className="btn btn-ghost">Cancel</ModalClose>
        <button type="button" className="btn btn-error" onClick={confirm} disabled={remove.isPending}>
          {remove.isPending ? "Removing..." : "Remove"}
        </button>
      </div>
    </Modal>
  );
}
