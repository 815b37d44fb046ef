import * as Dialog from "@radix-ui/react-dialog";
import * as Dropdown from "@radix-ui/react-dropdown-menu";
import { ChevronDown, FileText, Globe, ListChecks, Plus, Search, X, Zap } from "lucide-react";
import { useState } from "react";
import { Link, useNavigate } from "react-router";

const ITEM = "flex cursor-pointer items-center gap-2 rounded px-2 py-2 text-sm outline-none data-[highlighted]:bg-base-200";

/**
 * SPEC §2 Quick Actions: Add Domain (a dialog that only closes — adding happens on the
 * Domains screen it points to), DNS Lookup, View Reports and Check Issues.
 */
export function QuickActions() {
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  return (
    <>
      <Dropdown.Root>
        <Dropdown.Trigger className="btn btn-primary">
          <Zap className="h-4 w-4" aria-hidden />
          Quick Actions
          <ChevronDown className="h-4 w-4" aria-hidden />
        </Dropdown.Trigger>
        <Dropdown.Portal>
          <Dropdown.Content align="end" sideOffset={6} collisionPadding={8} className="z-50 w-52 rounded-box border border-base-300 bg-base-100 p-1 shadow-xl">
            <Dropdown.Item className={ITEM} onSelect={() => setAdding(true)}>
              <Plus className="h-4 w-4" aria-hidden /> Add Domain
            </Dropdown.Item>
            <Dropdown.Item className={ITEM} onSelect={() => navigate("/app/dns")}>
              <Search className="h-4 w-4" aria-hidden /> DNS Lookup
            </Dropdown.Item>
            <Dropdown.Item className={ITEM} onSelect={() => navigate("/app/reports")}>
              <FileText className="h-4 w-4" aria-hidden /> View Reports
            </Dropdown.Item>
            <Dropdown.Item className={ITEM} onSelect={() => navigate("/app/tasks")}>
              <ListChecks className="h-4 w-4" aria-hidden /> Check Issues
            </Dropdown.Item>
          </Dropdown.Content>
        </Dropdown.Portal>
      </Dropdown.Root>
      <AddDomainDialog open={adding} onOpenChange={setAdding} />
    </>
  );
}

/** SPEC §7: the dashboard's add-domain dialog makes no call; it sends the user to Domain Management. */
export function AddDomainDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-neutral/60" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-box bg-base-100 p-6 shadow-2xl">
          <div className="flex items-start gap-3">
            <span className="rounded-full bg-primary/10 p-2 text-primary">
              <Globe className="h-5 w-5" aria-hidden />
            </span>
            <div className="min-w-0">
              <Dialog.Title className="text-lg font-bold">Add Domain</Dialog.Title>
              <Dialog.Description className="mt-1 text-sm opacity-70">
                Domains are added on the Domains screen, where dmarcwarden checks their DMARC, SPF and DKIM records right away and shows what to fix.
              </Dialog.Description>
            </div>
          </div>
          <div className="mt-6 flex flex-wrap justify-end gap-2">
            <Dialog.Close className="btn btn-ghost">Close</Dialog.Close>
            <Link to="/app/domains" className="btn btn-primary" onClick={() => onOpenChange(false)}>
              Go to Domains
            </Link>
          </div>
          <Dialog.Close className="btn btn-ghost btn-sm btn-square absolute right-3 top-3" aria-label="Close">
            <X className="h-4 w-4" aria-hidden />
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
