/**
 * One JSON line per event on stdout. Callers pass plain fields; keys that could carry a
 * secret are dropped here as a last guard, so a careless call cannot leak one.
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /pass(word)?|secret|token|session|cookie|authorization|api[-_]?key/i;

export interface Logger {
  debug(event: string, fields?: Record<string, unknown>): void;
  info(event: string, fields?: Record<string, unknown>): void;
  warn(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: Level = "info", write: (line: string) => void = (l) => process.stdout.write(l + "\n")): Logger {
  const emit = (at: Level, event: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[at] < ORDER[level]) return;
    const safe: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) {
      if (SECRET_KEY.test(k)) continue;
      safe[k] = v instanceof Error ? v.message : v;
    }
    write(JSON.stringify({ time: new Date().toISOString(), level: at, event, ...safe }));
  };
  return {
    debug: (e, f) => emit("debug", e, f),
    info: (e, f) => emit("info", e, f),
    warn: (e, f) => emit("warn", e, f),
    error: (e, f) => emit("error", e, f),
  };
}

/** A logger that keeps its lines, for tests that assert what was (not) logged. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return Object.assign(createLogger("debug", (l) => lines.push(l)), { lines });
}
