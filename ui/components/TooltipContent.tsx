import * as TooltipPrimitive from "@radix-ui/react-tooltip";
import { useState, type ReactNode } from "react";
import { TOOLTIP_DELAY, TOOLTIP_SIDE_OFFSET, TOOLTIP_SKIP_DELAY, type TooltipGroup } from "./TooltipProvider";

/**
 * The Radix tooltip (positioning, portal, dismissal), in a chunk of its own. Each has its own
 * Radix provider; the app-wide skip delay comes from the shared group: a trigger entered
 * within TOOLTIP_SKIP_DELAY of another tooltip closing opens without the delay.
 */
export default function TooltipContent({ content, children, group }: { content: ReactNode; children: ReactNode; group: TooltipGroup }) {
  const [delay, setDelay] = useState(TOOLTIP_DELAY);
  const enter = () => setDelay(Date.now() - group.lastClosedAt < TOOLTIP_SKIP_DELAY ? 0 : TOOLTIP_DELAY);
  return (
    <TooltipPrimitive.Provider delayDuration={delay} skipDelayDuration={TOOLTIP_SKIP_DELAY}>
      <TooltipPrimitive.Root
        onOpenChange={(open) => {
          if (!open) group.lastClosedAt = Date.now();
        }}
      >
        <TooltipPrimitive.Trigger asChild onPointerEnter={enter}>
          {children}
        </TooltipPrimitive.Trigger>
        <TooltipPrimitive.Portal>
          <TooltipPrimitive.Content sideOffset={TOOLTIP_SIDE_OFFSET} className="z-50 rounded-md bg-neutral px-3 py-1.5 text-xs text-neutral-content shadow">
            {content}
          </TooltipPrimitive.Content>
        </TooltipPrimitive.Portal>
      </TooltipPrimitive.Root>
    </TooltipPrimitive.Provider>
  );
}
