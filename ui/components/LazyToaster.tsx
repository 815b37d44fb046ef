import { lazy, Suspense, useState } from "react";
import { useToasts } from "../lib/toast";

const Toaster = lazy(() => import("./Toaster").then((m) => ({ default: m.Toaster })));

/**
 * The Radix toaster, loaded with the first toast (no screen pays for it before it has
 * something to say) and kept mounted from then on.
 */
export function LazyToaster() {
  const toasts = useToasts();
  const [used, setUsed] = useState(false);
  if (toasts.length > 0 && !used) setUsed(true);
  if (!used) return null;
  return (
    <Suspense fallback={null}>
      <Toaster />
    </Suspense>
  );
}
