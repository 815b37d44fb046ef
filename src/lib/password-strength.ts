/**
 * How guessable a password is, estimated by zxcvbn-ts (MIT) with its common-password and
 * name dictionaries and keyboard patterns. Pure and synchronous, so the same check runs in the
 * server's Zod schema and in the browser's forms.
 */
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common";

/** zxcvbn's score from 0 (top-100 password) to 4; 3 resists an offline attack on a slow hash. */
export const PASSWORD_MIN_SCORE = 3;

let estimator: ZxcvbnFactory | null = null;

export function passwordScore(password: string): number {
  estimator ??= new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
  return estimator.check(password).score;
}

export const isGuessablePassword = (password: string) => passwordScore(password) < PASSWORD_MIN_SCORE;
