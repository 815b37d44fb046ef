import { toast } from "./toast";

/** Copies `text` and says so in a toast ("{what} copied"), or how to copy by hand when the browser refuses. */
export async function copyWithToast(text: string, what: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: `${what} copied` });
  } catch {
    toast({ title: "Could not copy", description: "Select the text and copy it by hand.", variant: "destructive" });
  }
}
