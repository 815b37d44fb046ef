/** zxcvbn with its common dictionaries and keyboard graphs: its own chunk (see password-strength.browser.ts). */
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import { adjacencyGraphs, dictionary } from "@zxcvbn-ts/language-common";

export const createEstimator = () => new ZxcvbnFactory({ dictionary, graphs: adjacencyGraphs });
