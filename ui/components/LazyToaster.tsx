import { useEffect, useState } from "react";
import { useToasts } from "../lib/toast";

type ToasterModule = typeof import("./Toaster");

let loaded: ToasterModule | null = null;
let loading: Promise<ToasterModule> | null = null;
const load = () =>
  (loading ??= import("./Toaster").then(
    (m) => (loaded = m),
    (error) => {
      loading = null; // a failed fetch is tried again with the next toast
      throw error;
    },
  ));

/**
 * The Radix toaster in a chunk of its own: fetched just after the first screen shows (not part
 * of what a screen needs to show), so it is there when the first toast comes; a toast raised
 * before it arrived shows as soon as it does.
 */
export function LazyToaster() {
  const toasts = useToasts();
  const [module, setModule] = useState<ToasterModule | null>(loaded);
  useEffect(() => {
    if (module) return;
    let live = true;
    const timer = setTimeout(() => void load().then((m) => live && setModule(m), () => {}), 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [module]);
  useEffect(() => {
    if (!module && toasts.length > 0) void load().then(setModule, () => {});
  }, [module, toasts.length]);
  if (!module) return null;
  return <module.Toaster />;
}
