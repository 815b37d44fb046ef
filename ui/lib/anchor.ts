/**
 * Brings a section into view (a page opened at `…#section`, or back from a provider) and keeps
 * it there while the page above it settles: parts loaded later (a code-split chart, a panel
 * whose query answers after) grow the page and would push the section down again. It stops
 * following at the reader's first move (wheel, touch, key, pointer) or after `forMs`.
 * Returns the function that stops it (for an effect's clean-up).
 */
export function keepInView(element: HTMLElement | null, forMs = 5_000): () => void {
  if (!element?.scrollIntoView) return () => {};
  const bring = () => element.scrollIntoView({ block: "start" });
  bring();
  if (typeof ResizeObserver === "undefined") return () => {};
  const observer = new ResizeObserver(bring);
  observer.observe(document.body);
  const moves = ["wheel", "touchstart", "keydown", "pointerdown"] as const;
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
    for (const move of moves) window.removeEventListener(move, stop, true);
  };
  const timer = setTimeout(stop, forMs);
  for (const move of moves) window.addEventListener(move, stop, { capture: true, passive: true });
  return stop;
}
