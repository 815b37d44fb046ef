import * as ToastPrimitive from "@radix-ui/react-toast";
import { X } from "lucide-react";
import { dismiss, TOAST_DURATION, useToasts } from "../lib/toast";

const VARIANT: Record<string, string> = {
  default: "border-base-300 bg-base-100 text-base-content",
  success: "border-success/40 bg-base-100 text-base-content",
  destructive: "border-error bg-error text-error-content",
};

/** Radix toasts: F8 focuses the region, swipe right past 50 px dismisses; SPEC §9's 420 px at most from medium screens. */
export function Toaster() {
  const toasts = useToasts();
  return (
    <ToastPrimitive.Provider duration={TOAST_DURATION} swipeDirection="right" swipeThreshold={50}>
      {toasts.map((t) => (
        <ToastPrimitive.Root
          key={t.id}
          open={t.open}
          onOpenChange={(open) => !open && dismiss(t.id)}
          className={`pointer-events-auto relative flex w-full items-start gap-3 rounded-box border p-4 pr-8 shadow-lg ${VARIANT[t.variant ?? "default"]}`}
          data-testid="toast"
        >
          <div className="grid gap-1">
            {t.title && <ToastPrimitive.Title className="text-sm font-semibold">{t.title}</ToastPrimitive.Title>}
            {t.description && <ToastPrimitive.Description className="text-sm opacity-90">{t.description}</ToastPrimitive.Description>}
          </div>
          <ToastPrimitive.Close aria-label="Close" className="absolute right-2 top-2 rounded p-1 opacity-70 hover:opacity-100">
            <X className="h-4 w-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      {/* bottom right everywhere: on phones a toast at the top would cover the header and its menu button */}
      <ToastPrimitive.Viewport hotkey={["F8"]} className="fixed bottom-0 right-0 z-[100] flex max-h-screen w-full flex-col p-4 pb-[max(1rem,env(safe-area-inset-bottom))] md:max-w-[420px]" />
    </ToastPrimitive.Provider>
  );
}
