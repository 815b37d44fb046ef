import { useEffect, useState, type ReactNode } from "react";

/**
 * The toast store (SPEC §4/§9): at most one notice visible at a time; a dismissed toast is
 * removed from the store after TOAST_REMOVE_DELAY; each shows for TOAST_DURATION.
 */
export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY = 1_000_000;
export const TOAST_DURATION = 5000;

export type ToastVariant = "default" | "destructive" | "success";

export interface ToastItem {
  id: string;
  title?: ReactNode;
  description?: ReactNode;
  variant?: ToastVariant;
  open: boolean;
}

type Listener = (toasts: ToastItem[]) => void;
let memory: ToastItem[] = [];
const listeners = new Set<Listener>();
const removeTimers = new Map<string, ReturnType<typeof setTimeout>>();
let count = 0;

function emit(next: ToastItem[]) {
  memory = next;
  for (const l of listeners) l(memory);
}

function scheduleRemoval(id: string) {
  if (removeTimers.has(id)) return;
  removeTimers.set(
    id,
    setTimeout(() => {
      removeTimers.delete(id);
      emit(memory.filter((t) => t.id !== id));
    }, TOAST_REMOVE_DELAY),
  );
}

export function dismiss(id?: string) {
  for (const t of memory) if (!id || t.id === id) scheduleRemoval(t.id);
  emit(memory.map((t) => (!id || t.id === id ? { ...t, open: false } : t)));
}

export function toast(input: Omit<ToastItem, "id" | "open">): { id: string; dismiss: () => void } {
  const id = String(++count);
  emit([{ ...input, id, open: true }, ...memory].slice(0, TOAST_LIMIT));
  return { id, dismiss: () => dismiss(id) };
}

/** For tests: forget every toast. */
export function resetToasts() {
  for (const t of removeTimers.values()) clearTimeout(t);
  removeTimers.clear();
  emit([]);
}

export function useToasts(): ToastItem[] {
  const [state, setState] = useState(memory);
  useEffect(() => {
    listeners.add(setState);
    return () => {
      listeners.delete(setState);
    };
  }, []);
  return state;
}
