import * as Dropdown from "@radix-ui/react-dropdown-menu";
import { ChevronDown, FileText, Globe, ListChecks, Plus, Search, Zap } from "lucide-react";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { Modal, ModalClose, ModalHeader } from "./Modal";

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
      <Dropdown.Root modal={false}>
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
    <Modal open={open} onOpenChange={onOpenChange}>
      <ModalHeader
        icon={Globe}
        title="Add Domain"
        description="Domains are added on the Domains screen, where dmarcwarden checks their DMARC, SPF and DKIM records right away and shows what to fix."
      />
      <div className="flex flex-wrap justify-end gap-2">
        <ModalClose className="btn btn-ghost">Close</ModalClose>
        <Link to="/app/domains" className="btn btn-primary" onClick={() => onOpenChange(false)}>
          Go to Domains
        </Link>
      </div>
    </Modal>
  );
}
