import { useEffect, useRef, useState, type ReactNode } from "react";

/**
 * A box that scrolls sideways inside its card when its content (a wide table) is wider than the
 * card: shadows at the edges show there is more, and while it overflows it is a named, focusable
 * region so keyboard users can scroll it with the arrow keys.
 */
export function ScrollArea({ label, children, className = "" }: { label: string; children: ReactNode; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const overflows = useOverflows(ref);
  return (
    <div
      ref={ref}
      className={`scroll-shadows overflow-x-auto ${className}`}
      {...(overflows ? { tabIndex: 0, role: "region", "aria-label": label } : {})}
      data-overflows={overflows || undefined}
    >
      {children}
    </div>
  );
}

/** Whether the element's content is wider or taller than its box (re-measured on resize). */
export function useOverflows(ref: React.RefObject<HTMLElement | null>): boolean {
  const [overflows, setOverflows] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setOverflows(el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
    measure();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    for (const child of Array.from(el.children)) observer.observe(child);
    return () => observer.disconnect();
  });
  return overflows;
}
