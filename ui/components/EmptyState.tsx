import type { LucideIcon } from "lucide-react";
import type { ReactNode } from "react";

/** A quiet "nothing here yet" block: an icon, a title, and what to do about it. */
export function EmptyState({ icon: Icon, title, children }: { icon: LucideIcon; title: string; children?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-2 py-8 text-center">
      <Icon className="h-10 w-10 opacity-30" aria-hidden />
      <p className="font-semibold">{title}</p>
      {children && <div className="max-w-sm text-sm opacity-70">{children}</div>}
    </div>
  );
}
