import * as Dialog from "@radix-ui/react-dialog";
import { X, type LucideIcon } from "lucide-react";
import { useRef, type ReactNode } from "react";

const WIDTHS = { md: "max-w-md", lg: "max-w-2xl" } as const;

/**
 * A centred Radix dialog (focus trap, Escape and overlay click close it) with the app's overlay,
 * panel and, unless `closeButton` is false, an X close button in the top-right corner.
 * Name it with <ModalHeader> (or ModalTitle/ModalDescription) inside.
 */
export function Modal({
  open,
  onOpenChange,
  size = "md",
  closeButton = true,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  size?: keyof typeof WIDTHS;
  closeButton?: boolean;
  children: ReactNode;
}) {
  // Opened by state, not by a Radix trigger, the dialog would hand focus to the page's body when it
  // closes: it goes back to whatever had focus when it opened, when that is still on the page.
  const opener = useRef<HTMLElement | null>(null);
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-neutral/60 backdrop-blur-[1px]" />
        <Dialog.Content
          onOpenAutoFocus={() => {
            opener.current = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
          }}
          onCloseAutoFocus={(e) => {
            if (!opener.current?.isConnected) return;
            e.preventDefault();
            opener.current.focus();
          }}
          className={`fixed left-1/2 top-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] ${WIDTHS[size]} -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-box bg-base-100 p-5 shadow-2xl sm:p-6`}
        >
          {children}
          {closeButton && (
            <Dialog.Close className="btn btn-ghost btn-sm btn-square absolute right-3 top-3" aria-label="Close">
              <X className="h-4 w-4" aria-hidden />
            </Dialog.Close>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** The dialog's title (its accessible name) and description, with an optional icon on the left. */
export function ModalHeader({ icon: Icon, title, description }: { icon?: LucideIcon; title: ReactNode; description?: ReactNode }) {
  return (
    <div className="mb-5 flex items-start gap-3 pr-8">
      {Icon && (
        <span className="rounded-full bg-primary/10 p-2 text-primary">
          <Icon className="h-5 w-5" aria-hidden />
        </span>
      )}
      <div className="min-w-0">
        <Dialog.Title className="text-xl font-bold">{title}</Dialog.Title>
        {description && <Dialog.Description className="mt-1 text-sm opacity-70">{description}</Dialog.Description>}
      </div>
    </div>
  );
}

export { Close as ModalClose, Description as ModalDescription, Title as ModalTitle } from "@radix-ui/react-dialog";
