/**
 * How guessable a password is, estimated by zxcvbn-ts (MIT) with its common-password and
 * name dictionaries and keyboard patterns. Synchronous, so the same check runs in the
 * server's Zod schema and in the browser's forms. The dictionaries (~450 KB, tens of ms to
 * unpack) are loaded on the first check, not when the server starts. The browser build swaps
 * this module for ui/lib/password-strength.browser.ts, which fetches them in a chunk of their own.
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";

/** zxcvbn's score from 0 (top-100 password) to 4; 3 resists an offline attack on a slow hash. */
export const PASSWORD_MIN_SCORE = 3;

let estimator: ZxcvbnFactory | null = null;

export function passwordScore(password: string): number {
  if (!estimator) {
    const { ZxcvbnFactory: Factory } = require("@zxcvbn-ts/core") as typeof import("@zxcvbn-ts/core");
    const { adjacencyGraphs, dictionary } = require("@zxcvbn-ts/language-common") as typeof import("@zxcvbn-ts/language-common");
    estimator = new Factory({ dictionary, graphs: adjacencyGraphs });
  }
  return estimator.check(password).score;
}

export const isGuessablePassword = (password: string) => passwordScore(password) < PASSWORD_MIN_SCORE;
