/**
 * When a client of an MSP's portfolio needs someone to look: a vulnerable or partly protected
 * domain, open tasks or alerts this week. One rule for the portfolio screen's "Needs attention"
 * filter and the weekly portfolio digest's order (pure, no dependencies: the UI imports it).
 */
export interface AttentionFigures {
  worstStatus: string | null;
  openTasks: number;
  alerts7d: number;
}

/** Why a client needs attention, in words (empty: it does not). */
export function attentionReasons(c: AttentionFigures): string[] {
  const reasons: string[] = [];
  if (c.worstStatus === "vulnerable") reasons.push("a vulnerable domain");
  else if (c.worstStatus === "partial") reasons.push("a partly protected domain");
  if (c.openTasks > 0) reasons.push(c.openTasks === 1 ? "1 open task" : `${c.openTasks} open tasks`);
  if (c.alerts7d > 0) reasons.push(c.alerts7d === 1 ? "1 alert" : `${c.alerts7d} alerts`);
  return reasons;
}

export function needsAttention(c: AttentionFigures): boolean {
  return attentionReasons(c).length > 0;
}
