import * as Dialog from "@radix-ui/react-dialog";
import { CheckCircle2, X } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { DEFAULT_REQUEST_TYPE, type RequestType } from "../../src/features/contact/contract";
import { ContactForm } from "./ContactForm";

/** SPEC §9: the dialog's confirmation view shows for 2 seconds. */
export const CONTACT_CONFIRMATION_MS = 2000;

/**
 * The contact dialog of SPEC §2/§4 (opened from the landing page): titled Send Us a Message;
 * after sending it shows Message Sent for 2 seconds, then the form resets and it closes.
 * Radix traps focus inside and closes on Escape.
 */
export function ContactDialog({
  open,
  onOpenChange,
  requestType = DEFAULT_REQUEST_TYPE,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  requestType?: RequestType;
}) {
  const [sent, setSent] = useState(false);
  // The latest callback, so a parent re-render does not restart the confirmation timer.
  const onOpenChangeRef = useRef(onOpenChange);
  onOpenChangeRef.current = onOpenChange;

  useEffect(() => {
    if (!sent) return;
    const timer = setTimeout(() => {
      setSent(false);
      onOpenChangeRef.current(false);
    }, CONTACT_CONFIRMATION_MS);
    return () => clearTimeout(timer);
  }, [sent]);

  const change = (next: boolean) => {
    if (!next) setSent(false);
    onOpenChange(next);
  };

  return (
    <Dialog.Root open={open} onOpenChange={change}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-neutral/60 backdrop-blur-[1px]" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-2xl -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-box bg-base-100 p-5 shadow-2xl sm:p-6">
          {sent ? (
            <div className="flex flex-col items-center gap-3 py-10 text-center" role="status">
              <CheckCircle2 className="h-14 w-14 text-success" aria-hidden />
              <Dialog.Title className="text-2xl font-bold">Message Sent</Dialog.Title>
              <Dialog.Description className="max-w-sm opacity-70">Thank you for reaching out. We'll get back to you within 24 hours.</Dialog.Description>
            </div>
          ) : (
            <>
              <div className="mb-5 pr-8">
                <Dialog.Title className="text-xl font-bold">Send Us a Message</Dialog.Title>
                <Dialog.Description className="mt-1 text-sm opacity-70">
                  Questions about email security, pricing or your setup? We reply within 24 hours.
                </Dialog.Description>
              </div>
              <ContactForm defaultRequestType={requestType} onSent={() => setSent(true)} />
            </>
          )}
          <Dialog.Close className="btn btn-ghost btn-sm btn-square absolute right-3 top-3" aria-label="Close">
            <X className="h-4 w-4" />
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
