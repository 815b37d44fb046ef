import { CheckCircle2 } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { DEFAULT_REQUEST_TYPE, type RequestType } from "../../src/features/contact/contract";
import { ContactForm } from "./ContactForm";
import { Modal, ModalDescription, ModalHeader, ModalTitle } from "./Modal";

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
    <Modal open={open} onOpenChange={change} size="lg">
      {sent ? (
        <div className="flex flex-col items-center gap-3 py-10 text-center" role="status">
          <CheckCircle2 className="h-14 w-14 text-success" aria-hidden />
          <ModalTitle className="text-2xl font-bold">Message Sent</ModalTitle>
          <ModalDescription className="max-w-sm opacity-70">Thank you for reaching out. We'll get back to you within 24 hours.</ModalDescription>
        </div>
      ) : (
        <>
          <ModalHeader title="Send Us a Message" description="Questions about email security, pricing or your setup? We reply within 24 hours." />
          <ContactForm defaultRequestType={requestType} onSent={() => setSent(true)} />
        </>
      )}
    </Modal>
  );
}
