import type { ReactNode } from "react";

/** A titled card section (an ARIA region named by its title), with an optional action on the right of the title. */
export function Panel({ title, action, children, className = "" }: { title: string; action?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={`card min-w-0 border border-base-300 bg-base-100 ${className}`} aria-label={title}>
      <div className="card-body gap-3 p-4 sm:p-5">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 className="card-title text-base">{title}</h2>
          {action}
        </div>
        {children}
      </div>
    </section>
  );
}
