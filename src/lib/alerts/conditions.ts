/**
 * One alert per cause. A check (of a domain's DNS, of its report figures) returns the
 * conditions that hold now, each as the event it would raise. An event fires only for a
 * condition that was not already active; an active condition that no longer holds clears,
 * so it alerts again if it comes back.
 */
import type { AlertEvent, AlertEventType } from "./events";

/** The dedupe key of a condition: its type, the domain and what singles it out (a selector, a source address…). */
export function conditionKey(type: AlertEventType, domain: string | null, ...qualifiers: (string | number)[]): string {
  return [type, (domain ?? "").toLowerCase(), ...qualifiers.map(String)].join("|");
}

/** Which active keys one evaluator speaks for: the given types about the given domain. Others are left as they are. */
export function conditionScope(domain: string | null, types: readonly AlertEventType[]): (key: string) => boolean {
  const bases = types.map((type) => conditionKey(type, domain));
  return (key) => bases.some((base) => key === base || key.startsWith(`${base}|`));
}

export interface ConditionUpdate {
  /** events to record and deliver: conditions that hold now and were not active */
  fire: AlertEvent[];
  /** active keys in scope whose condition no longer holds */
  cleared: string[];
  /** the new active set (in-scope keys replaced, the rest kept) */
  active: string[];
}

/**
 * The state machine: given the active condition keys and the conditions that hold now
 * (every one of them in `inScope`), which events fire and which conditions clear.
 */
export function updateConditions(active: Iterable<string>, current: AlertEvent[], inScope: (key: string) => boolean): ConditionUpdate {
  const before = new Set(active);
  const now = new Map<string, AlertEvent>();
  for (const event of current) {
    if (!inScope(event.dedupeKey)) throw new Error(`condition ${event.dedupeKey} is outside the evaluated scope`);
    if (!now.has(event.dedupeKey)) now.set(event.dedupeKey, event);
  }
  const fire = [...now.values()].filter((event) => !before.has(event.dedupeKey));
  const cleared = [...before].filter((key) => inScope(key) && !now.has(key));
  const kept = [...before].filter((key) => !inScope(key));
  return { fire, cleared, active: [...kept, ...now.keys()] };
}
