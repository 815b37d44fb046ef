import { createContext, lazy, Suspense, useContext, useRef, type ReactNode } from "react";

/** SPEC §9: open delay 700 ms, skip delay 300 ms, side offset 4. */
export const TOOLTIP_DELAY = 700;
export const TOOLTIP_SKIP_DELAY = 300;
export const TOOLTIP_SIDE_OFFSET = 4;

/**
 * What the tooltips of the app share: when the last one closed. Moving from one trigger to
 * another within TOOLTIP_SKIP_DELAY opens the next at once, as Radix's provider does.
 */
export interface TooltipGroup {
  lastClosedAt: number;
}

const GroupContext = createContext<TooltipGroup>({ lastClosedAt: 0 });

/** Provides the shared skip delay. Radix itself loads with the first tooltip (TooltipContent), not with every page. */
export function TooltipProvider({ children }: { children: ReactNode }) {
  const group = useRef<TooltipGroup>({ lastClosedAt: 0 });
  return <GroupContext.Provider value={group.current}>{children}</GroupContext.Provider>;
}

const TooltipContent = lazy(() => import("./TooltipContent"));

/** A tooltip on its trigger: the trigger shows at once, the Radix tooltip takes it over as soon as its chunk arrives. */
export function Tooltip({ content, children }: { content: ReactNode; children: ReactNode }) {
  const group = useContext(GroupContext);
  return (
    <Suspense fallback={children}>
      <TooltipContent content={content} group={group}>
        {children}
      </TooltipContent>
    </Suspense>
  );
}
