/**
 * The browser's twin of src/lib/password-strength.ts, put in its place by scripts/build-ui.ts:
 * the zxcvbn dictionaries (~240 KB gzip) are a chunk of their own, fetched when a password field
 * first gets focus (or on the first check), so no screen carries them in its bundle. A check made
 * before they arrive passes here; the server applies the same rule and answers with its message.
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";

export const PASSWORD_MIN_SCORE = 3;

let estimator: ZxcvbnFactory | null = null;
let loading: Promise<void> | null = null;

function load(): Promise<void> {
  loading ??= import("./zxcvbn-estimator").then(
    (m) => {
      estimator = m.createEstimator();
    },
    () => {
      loading = null; // a failed fetch is tried again on the next focus
    },
  );
  return loading;
}

if (typeof document !== "undefined") {
  document.addEventListener("focusin", (event) => {
    const target = event.target as HTMLInputElement | null;
    if (!estimator && target?.tagName === "INPUT" && target.type === "password") void load();
  });
}

export function passwordScore(password: string): number {
  if (!estimator) {
    void load();
    return PASSWORD_MIN_SCORE;
  }
  return estimator.check(password).score;
}

export const isGuessablePassword = (password: string) => passwordScore(password) < PASSWORD_MIN_SCORE;
