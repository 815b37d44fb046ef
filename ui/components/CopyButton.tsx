import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { toast } from "../lib/toast";

/**
 * Copies `value` to the clipboard: the toast says "{what} copied successfully" (SPEC §8's
 * wording), or that the browser blocked it; `copied` is true for two seconds after.
 */
export function useCopy(value: string, what: string): { copied: boolean; copy: () => Promise<void> } {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("clipboard unavailable");
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
      toast({ title: "Copied to clipboard", description: `${what} copied successfully` });
    } catch {
      toast({ title: "Copy failed", description: "Your browser blocked the clipboard. Select the value and copy it by hand.", variant: "destructive" });
    }
  };
  return { copied, copy };
}

/** A square button that copies `value` (see useCopy). */
export function CopyButton({ value, what }: { value: string; what: string }) {
  const { copied, copy } = useCopy(value, what);
  return (
    <button type="button" className="btn btn-square btn-outline btn-sm" onClick={copy} aria-label={`Copy ${what}`}>
      {copied ? <Check className="h-4 w-4 text-success" aria-hidden /> : <Copy className="h-4 w-4" aria-hidden />}
    </button>
  );
}
